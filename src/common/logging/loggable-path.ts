import type { Request } from 'express';

/** `wsk_` and what follows it up to the next `/`: an API key put into a URL, by mistake or on purpose. */
const API_KEY_SHAPED = /wsk_[^/]*/gi;
const PERCENT_ESCAPE = /%([0-9A-Fa-f]{2})/g;

/**
 * A request's path as the logs may hold it: never its query string (a place clients put keys and
 * tokens), percent-decoded so that an encoded key (`%77sk_…`) is recognised too, and with every
 * API-key-shaped token replaced by `wsk_[redacted]`. For paths that matched no route; a matched
 * route is logged as its pattern, which holds no request value.
 */
export function loggablePath(request: Request): string {
  return decoded(request.path).replace(API_KEY_SHAPED, 'wsk_[redacted]');
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // Not UTF-8 once decoded: decode each escape on its own, which suffices to find an ASCII key.
    return path.replace(PERCENT_ESCAPE, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}
