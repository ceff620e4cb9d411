import { AppError } from '../errors/app-error';

/** What an `If-Match` header asks for: any current representation, or this revision. */
export type RevisionPrecondition = { kind: 'any' } | { kind: 'revision'; revision: number };

const STRONG_REVISION_TAG = /^"([1-9]\d{0,15})"$/;

/** The strong entity tag of a revisioned resource: its revision in quotes (`"3"`). */
export function revisionETag(revision: number): string {
  return `"${revision}"`;
}

/**
 * Reads `If-Match` (RFC 9110, 13.1.1) for a resource whose entity tag is its revision: `*`, or one
 * strong tag holding a positive integer. A weak tag (`W/"3"`), a list, or anything else cannot
 * name one revision and is 400 `invalid_format` (details.field `If-Match`). Absent: undefined.
 */
export function parseIfMatch(header: string | undefined): RevisionPrecondition | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return { kind: 'any' };
  const revision = Number(STRONG_REVISION_TAG.exec(value)?.[1]);
  if (!Number.isSafeInteger(revision)) {
    throw AppError.validation('If-Match', 'invalid_format', 'If-Match: must be * or one strong entity tag holding a revision, such as "3" (the ETag of the resource).');
  }
  return { kind: 'revision', revision };
}

/**
 * Whether `If-None-Match` (RFC 9110, 13.1.2) holds for a representation tagged `etag`: `*`, or a
 * list naming the tag, compared weakly (`W/"3"` matches `"3"`). Absent: false.
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.trim() === '*' || header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
