/** Where SCIM is served (CONTRACT.md section 12): beside the REST API, not under it. */
export const SCIM_BASE_PATH = '/scim/v2';

/** RFC 7644 §3.1: what SCIM answers in, and what it reads besides application/json. */
export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_CONTENT_TYPE = `${SCIM_MEDIA_TYPE}; charset=utf-8`;
