import { Header } from '@nestjs/common';

/** Where SCIM is served (CONTRACT.md section 12): beside the REST API, not under it. */
export const SCIM_BASE_PATH = '/scim/v2';

/** RFC 7644 §3.1: what SCIM answers in, and what it reads besides application/json. */
export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_CONTENT_TYPE = `${SCIM_MEDIA_TYPE}; charset=utf-8`;

/**
 * Answers every route of a SCIM controller in application/scim+json (RFC 7644 §3.1): Nest's
 * @Header on each method, which Nest sets before the handler runs, at no cost per request beyond
 * the header (an interceptor costs an rxjs pipeline and an async resource per request). Errors get
 * it from SCIM's error format; Express drops it from bodiless answers (204, 304).
 */
export function ScimJsonAnswers(): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
      if (name !== 'constructor' && typeof descriptor.value === 'function') Header('Content-Type', SCIM_CONTENT_TYPE)(prototype, name, descriptor);
    }
  };
}
