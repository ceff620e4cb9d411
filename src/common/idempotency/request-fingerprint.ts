import type { Request } from 'express';
import { canonicalJson } from '../json/canonical-json';
import { sha256 } from '../sha256';

/**
 * What makes two requests "the same" for an idempotency key: method, the path as requested
 * (not the route pattern, so that a key sent to two different resources is caught), the query
 * and the JSON body in canonical form, where object key order does not matter.
 */
export function requestFingerprint(request: Request): string {
  const canonical = canonicalJson([request.method, request.path, request.query, request.body ?? null]);
  return sha256(canonical);
}
