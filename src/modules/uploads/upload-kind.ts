export const UPLOAD_KINDS = ['package', 'icon'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/** Where an icon is served from; icon_url is this path on the service's public base URL. */
export function uploadContentPath(uploadId: string): string {
  return `/api/openapi/v1/uploads/${uploadId}/content`;
}
