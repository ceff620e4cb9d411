import type { Request } from 'express';
import type { AppConfig } from '../../config/app-config';
import { isValidHost } from './host-header';

const HTTP_SCHEME = /^https?$/i;

/**
 * The address clients reach the service at, for the URLs it hands out (icon_url). PUBLIC_BASE_URL
 * when configured (set it behind a proxy); otherwise the scheme and Host of the request. Nothing of
 * a header goes into it unchecked: the scheme is `http` or `https` (Express takes it from
 * X-Forwarded-Proto under TRUST_PROXY; any other value there is ignored in favour of the
 * connection's own), and the Host header has been checked for every request (refuseInvalidHostHeader).
 */
export function publicBaseUrl(config: AppConfig, request: Request): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL;
  const forwarded = request.protocol;
  const scheme = HTTP_SCHEME.test(forwarded) ? forwarded.toLowerCase() : connectionScheme(request);
  const host = request.headers.host;
  return `${scheme}://${host !== undefined && isValidHost(host) ? host : 'localhost'}`;
}

function connectionScheme(request: Request): string {
  return (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
}
