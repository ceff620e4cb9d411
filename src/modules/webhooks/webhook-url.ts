import { isIP } from 'node:net';
import { AppError } from '../../common/errors/app-error';
import { isPublicAddress } from './target-address';

/** The host of a URL as the resolver and isIP take it (IPv6 literals without their brackets). */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

// Control characters (C0, DEL, C1) and backslashes, anywhere in the value as sent: new URL drops
// tabs and line breaks and reads `\` as `/`, so the URL it makes would not be the one stored, and a
// CR LF that reached a request line would split it.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\\]/;

/** The setting an operator changes for receivers on localhost or a private network, as a refusal names it. */
const INSECURE_TARGETS_SETTING = 'the service setting WEBHOOK_ALLOW_INSECURE_TARGETS=true';

/**
 * What can be told from the URL alone, at creation: an absolute `https` URL (or `http` when insecure
 * targets are allowed) as sent, without control characters or backslashes, credentials, fragment or
 * port 0, whose host is no private address literal nor `localhost`. Whether a name resolves to public
 * addresses is checked at every delivery, since DNS answers change (webhook-sender.ts).
 */
export function checkWebhookUrl(value: string, allowInsecure: boolean): void {
  if (UNSAFE_CHARACTERS.test(value)) {
    throw AppError.validation('url', 'invalid_format', 'url: must not contain control characters (line breaks, tabs, …) or backslashes.');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.validation('url', 'invalid_format', 'url: must be an absolute URL (https://hooks.example.com/…).');
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw AppError.validation(
      'url',
      'invalid_value',
      allowInsecure ? 'url: must use https or http.' : `url: must use https (http and private addresses need ${INSECURE_TARGETS_SETTING}).`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw AppError.validation('url', 'invalid_value', 'url: must not carry credentials (user:password@); authenticate the requests by their signature.');
  }
  if (url.hash !== '' || value.includes('#')) throw AppError.validation('url', 'invalid_value', 'url: must not have a fragment (#…).');
  if (url.port === '0') throw AppError.validation('url', 'invalid_value', 'url: must not use port 0.');
  if (allowInsecure) return;
  const host = bareHostname(url);
  if (isIP(host) !== 0 ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
    throw AppError.validation(
      'url',
      'invalid_value',
      `url: must reach a public address, not a private, loopback or link-local one (a receiver on this machine or in the cluster needs ${INSECURE_TARGETS_SETTING}).`,
    );
  }
}
