import { createHash } from 'node:crypto';
import type { Request } from 'express';

/**
 * What makes two requests "the same" for an idempotency key: method, the path as requested
 * (not the route pattern, so that a key sent to two different resources is caught), the query
 * and the JSON body in canonical form, where object key order does not matter.
 */
export function requestFingerprint(request: Request): string {
  const canonical = canonicalJson([request.method, request.path, request.query, request.body ?? null]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** JSON with every object's keys sorted, recursively. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) sorted[key] = sortKeys(source[key]);
  return sorted;
}
