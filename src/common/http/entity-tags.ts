import { AppError } from '../errors/app-error';

/**
 * What a write's precondition asks for: any current representation (`If-Match: *`), this revision
 * (`If-Match: "3"`), or none at all (`If-None-Match: *`, which an existing resource fails).
 */
export type RevisionPrecondition = { kind: 'any' } | { kind: 'revision'; revision: number } | { kind: 'absent' };

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
 * Reads `If-None-Match` on a write (RFC 9110, 13.1.2): `*` asks that the write happen only where
 * the resource has no current representation, so a PATCH of an existing one fails it (412). A
 * list of tags is refused (400 `invalid_format`, details.field `If-None-Match`) rather than
 * ignored: `If-Match` is how a write names the revision it expects. Absent: false.
 */
export function ifNoneMatchAnyOnWrite(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  throw AppError.validation('If-None-Match', 'invalid_format', 'If-None-Match: a write takes only * (send the ETag as If-Match to change a known revision).');
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
