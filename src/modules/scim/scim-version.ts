import { ErrorCode } from '../../common/errors/error-code';
import type { RevisionRequirement } from '../../common/http/write-preconditions';

/**
 * `meta.version` and the ETag of a SCIM resource: a weak entity tag of its revision, the same
 * revision the REST API's strong `"<revision>"` names (RFC 7644 §3.14 calls versions weak).
 */
export function scimVersion(revision: bigint): string {
  return `W/"${revision}"`;
}

const ONE_TAG = /^(?:W\/)?"(\d{1,19})"$/;

/**
 * What a SCIM write's If-Match asks (RFC 7644 §3.14): `*` or nothing, any revision; one tag, weak
 * or strong (providers send meta.version as they read it), that revision. Anything else names no
 * revision of ours and can never match: 412.
 */
export function scimIfMatch(header: string | undefined): RevisionRequirement {
  if (header === undefined || header.trim() === '*') return { kind: 'none' };
  const digits = ONE_TAG.exec(header.trim())?.[1];
  return { kind: 'revision', revision: digits === undefined ? 0n : BigInt(digits), code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' };
}
