import type { Request } from 'express';
import { SECRET_PREFIXES } from '../secret-prefixes';

// A secret's prefix, in any case, and the rest of the path: a webhook secret is base64, which holds
// `/`, so where a secret ends cannot be told, and nothing after its start is kept.
const SECRET_AND_REST = new RegExp(`(${SECRET_PREFIXES.join('|')}).*`, 'is');
const PERCENT_ESCAPE = /%([0-9A-Fa-f]{2})/g;

/**
 * A request's path as the logs may hold it: never its query string (a place clients put keys and
 * tokens), percent-decoded so that an encoded secret (`%77sk_…`) is recognised too, and cut at the
 * first secret-shaped token (SECRET_PREFIXES), which becomes `<prefix>[redacted]`. For paths that
 * matched no route; a matched route is logged as its pattern, which holds no request value.
 */
export function loggablePath(request: Request): string {
  return decoded(request.path).replace(SECRET_AND_REST, (_secret, prefix: string) => `${prefix.toLowerCase()}[redacted]`);
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // Not UTF-8 once decoded: decode each escape on its own, which suffices to find an ASCII secret.
    return path.replace(PERCENT_ESCAPE, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}
