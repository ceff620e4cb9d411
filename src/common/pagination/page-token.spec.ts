import { AppError } from '../errors/app-error';
import { decodePageToken, encodePageToken, pageOfRows, startOfPage } from './page-token';

const ORG_A = ['departments', '3f0d4c1e-1111-4a4a-8a8a-000000000001', ''];
const ORG_B = ['departments', '3f0d4c1e-2222-4a4a-8a8a-000000000002', ''];
const POSITION = { after: '42', id: '6b1f8f0e-5c43-4d55-9a0e-2f6f3f1b9c11' };

describe('page tokens', () => {
  it('round-trips a position for the same query, with nothing but URL-safe characters', () => {
    const token = encodePageToken(ORG_A, POSITION);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(ORG_A, token)).toEqual(POSITION);
  });

  it('keeps int64 sort values exactly', () => {
    const position = { after: '9223372036854775807', id: POSITION.id };
    expect(decodePageToken(ORG_A, encodePageToken(ORG_A, position))).toEqual(position);
  });

  it('refuses a token of another organization or another filter', () => {
    const token = encodePageToken(ORG_A, POSITION);
    expect(decodePageToken(ORG_B, token)).toBeUndefined();
    expect(decodePageToken([...ORG_A.slice(0, 2), 'some-parent'], token)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['base64url of no JSON', Buffer.from('hello').toString('base64url')],
    ['JSON of the wrong shape', Buffer.from(JSON.stringify({ after: '1' })).toString('base64url')],
    ['a tag that is right but a position that is not a number', forged(['1; DROP TABLE', POSITION.id])],
    ['a tag that is right but an id that is not a uuid', forged(['1', 'x'])],
    ['another version', Buffer.from(JSON.stringify([2, 'x', '1', POSITION.id])).toString('base64url')],
    ['very long', 'A'.repeat(600)],
  ])('refuses a made-up token: %s', (_case, token) => {
    expect(decodePageToken(ORG_A, token)).toBeUndefined();
  });
});

/** A token with the right tag for ORG_A but the given position fields. */
function forged([after, id]: [string, string]): string {
  const [version, tag] = JSON.parse(Buffer.from(encodePageToken(ORG_A, POSITION), 'base64url').toString()) as [number, string];
  return Buffer.from(JSON.stringify([version, tag, after, id])).toString('base64url');
}

describe('pages of rows', () => {
  const position = (n: number) => ({ after: String(n), id: `00000000-0000-4000-8000-00000000000${n}` });

  it('starts at the first page without a token, at the token\'s position with one, and refuses another query\'s token', () => {
    expect(startOfPage(ORG_A, undefined, 'parent_id')).toBeUndefined();
    expect(startOfPage(ORG_A, encodePageToken(ORG_A, POSITION), 'parent_id')).toEqual(POSITION);
    expect(() => startOfPage(ORG_B, encodePageToken(ORG_A, POSITION), 'parent_id')).toThrow(AppError);
  });

  it('keeps page_size rows and hands out a token at the last one only when an extra row came back', () => {
    const more = pageOfRows(ORG_A, [1, 2, 3], 2, position);
    expect(more.items).toEqual([1, 2]);
    expect(decodePageToken(ORG_A, more.next_page_token!)).toEqual(position(2));
    expect(pageOfRows(ORG_A, [1, 2], 2, position)).toEqual({ items: [1, 2], next_page_token: null });
    expect(pageOfRows(ORG_A, [], 2, position)).toEqual({ items: [], next_page_token: null });
  });
});
