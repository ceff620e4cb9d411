import type { Request } from 'express';
import type { AppConfig } from '../../config/app-config';

/**
 * The address clients reach the service at, for the URLs it hands out (icon_url). PUBLIC_BASE_URL
 * when configured (set it behind a proxy); otherwise the scheme and host of the request.
 */
export function publicBaseUrl(config: AppConfig, request: Request): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL;
  return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}
