import { createHash } from 'node:crypto';

/** Where the next page starts: the last item's sort key. */
export interface KeysetPosition {
  /** The sort value, as text, so that int64 values pass unchanged. */
  after: string;
  /** The last item's id, which breaks ties of the sort value. */
  id: string;
}

const VERSION = 1;
const QUERY_TAG_LENGTH = 22;

/**
 * An opaque page token: the keyset position plus a tag of the query it belongs to (organization
 * and filters), base64url. It is a position, not a credential: any instance reads it (no state
 * behind it), and a token of another query or organization, or one that was made up, is refused
 * because its tag or its shape does not match.
 */
export function encodePageToken(query: readonly string[], position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([VERSION, queryTag(query), position.after, position.id])).toString('base64url');
}

/** The position in `token`, or undefined when the token is not one of this query. */
export function decodePageToken(query: readonly string[], token: string): KeysetPosition | undefined {
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
  if (!/^-?\d{1,19}$/.test(after) || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) return undefined;
  return { after, id };
}

function queryTag(query: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, QUERY_TAG_LENGTH);
}
