import { isIP } from 'node:net';
import { AppError } from '../../common/errors/app-error';
import { isPublicAddress } from './target-address';

/** The host of a URL as the resolver and isIP take it (IPv6 literals without their brackets). */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * What can be told from the URL alone, at creation: an absolute `https` URL (or `http` when insecure
 * targets are allowed), without credentials or fragment, whose host is no private address literal
 * nor `localhost`. Whether a name resolves to public addresses is checked at every delivery, since
 * DNS answers change (webhook-sender.ts).
 */
export function checkWebhookUrl(value: string, allowInsecure: boolean): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.validation('url', 'invalid_format', 'url: must be an absolute URL (https://hooks.example.com/…).');
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw AppError.validation('url', 'invalid_value', `url: must use ${allowInsecure ? 'https or http' : 'https'}.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw AppError.validation('url', 'invalid_value', 'url: must not carry credentials (user:password@); authenticate the requests by their signature.');
  }
  if (url.hash !== '' || value.includes('#')) throw AppError.validation('url', 'invalid_value', 'url: must not have a fragment (#…).');
  if (allowInsecure) return;
  const host = bareHostname(url);
  if (isIP(host) !== 0 ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
    throw AppError.validation('url', 'invalid_value', 'url: must reach a public address, not a private, loopback or link-local one.');
  }
}
