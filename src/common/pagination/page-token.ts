import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error';

/** Where the next page starts: the last item's sort key. */
export interface KeysetPosition {
  /** The sort value, as text, so that int64 values pass unchanged. */
  after: string;
  /** The last item's id, which breaks ties of the sort value. */
  id: string;
}

/**
 * The sort values a list hands out in its tokens, inclusive. A position outside them was not issued
 * by the service (and would break the list's SQL), so a token that carries one is refused.
 */
export interface SortValueRange {
  readonly min: bigint;
  readonly max: bigint;
}

/** The values of a positive int64 column: a sequence or a server-assigned order that starts at 1. */
export const POSITIVE_INT64: SortValueRange = { min: 1n, max: 2n ** 63n - 1n };

/**
 * The milliseconds a UUID v7 carries (48 bits), for a list sorted by its v7 ids: the position is
 * `{ after: String(uuidV7Millis(id)), id }` and the keyset condition is on the id alone.
 */
export const UUID_V7_MILLISECONDS: SortValueRange = { min: 0n, max: 2n ** 48n - 1n };

const VERSION = 1;
const QUERY_TAG_LENGTH = 22;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Integers as String(n) writes them: no leading zeros, no plus sign, no "-0".
const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d{0,19})$/;

/**
 * An opaque page token: the keyset position plus a tag of the query it belongs to (organization
 * and filters), base64url. It is a position, not a credential: any instance reads it (no state
 * behind it), and a token of another query or organization, or one that was made up, is refused
 * because its tag or its shape does not match.
 */
export function encodePageToken(query: readonly string[], position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([VERSION, queryTag(query), position.after, position.id])).toString('base64url');
}

/**
 * The position in `token`, or undefined when the token is not one of this query: not base64url
 * JSON of the encoder's shape, another version or query tag, or a sort value that is not an
 * integer within `sortValues`.
 */
export function decodePageToken(query: readonly string[], sortValues: SortValueRange, token: string): KeysetPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(token)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) return undefined;
  const [version, tag, after, id] = decoded as unknown[];
  if (version !== VERSION || tag !== queryTag(query) || typeof after !== 'string' || typeof id !== 'string') return undefined;
  if (!CANONICAL_INTEGER.test(after) || !UUID.test(id)) return undefined;
  const value = BigInt(after);
  if (value < sortValues.min || value > sortValues.max) return undefined;
  return { after, id };
}

function queryTag(query: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, QUERY_TAG_LENGTH);
}

/**
 * Where the page a request asks for starts: undefined for the first page (no token), else the
 * token's position. A token of another query or organization, or a made-up one, is 400
 * `invalid_value` naming page_token; `sameWhat` names what must not change between pages.
 */
export function startOfPage(query: readonly string[], sortValues: SortValueRange, pageToken: string | undefined, sameWhat: string): KeysetPosition | undefined {
  if (pageToken === undefined) return undefined;
  const position = decodePageToken(query, sortValues, pageToken);
  if (!position) throw AppError.validation('page_token', 'invalid_value', `page_token is not a token of this query: pass the next_page_token of the previous page, with the same ${sameWhat}.`);
  return position;
}

/**
 * A page from rows fetched one beyond `pageSize` (the extra row says another page follows): the
 * page's rows, and the token of the next page, or null on the last one.
 */
export function pageOfRows<Row>(query: readonly string[], rows: Row[], pageSize: number, positionOf: (row: Row) => KeysetPosition): { items: Row[]; next_page_token: string | null } {
  const items = rows.slice(0, pageSize);
  const more = rows.length > pageSize;
  return { items, next_page_token: more ? encodePageToken(query, positionOf(items[items.length - 1])) : null };
}
