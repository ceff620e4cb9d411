import { hash, type BinaryLike } from 'node:crypto';

/**
 * SHA-256 of `data`, the one way the code hashes: one-shot `crypto.hash` (Node ≥ 20.12), which
 * costs a third of a `createHash` object for the short inputs hashed per request (docs/adr/0011-api-key-cache-with-revocation-notices.md).
 */
export function sha256(data: BinaryLike, encoding: 'hex' | 'base64url' = 'hex'): string {
  return hash('sha256', data, encoding);
}
