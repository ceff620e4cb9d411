import { AppError } from '../errors/app-error';
import { decodePageToken, encodePageToken, pageOfRows, startOfPage, type SortValueRange } from './page-token';

const ORG_A = ['departments', '3f0d4c1e-1111-4a4a-8a8a-000000000001', ''];
const ORG_B = ['departments', '3f0d4c1e-2222-4a4a-8a8a-000000000002', ''];
const INT64: SortValueRange = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const FROM_ONE: SortValueRange = { min: 1n, max: 1000n };
const POSITION = { after: '42', id: '6b1f8f0e-5c43-4d55-9a0e-2f6f3f1b9c11' };

describe('page tokens', () => {
  it('round-trips a position for the same query, with nothing but URL-safe characters', () => {
    const token = encodePageToken(ORG_A, POSITION);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(ORG_A, INT64, token)).toEqual(POSITION);
  });

  it.each(['9223372036854775807', '-9223372036854775808', '0', '-1'])('keeps the int64 sort value %s exactly', (after) => {
    const position = { after, id: POSITION.id };
    expect(decodePageToken(ORG_A, INT64, encodePageToken(ORG_A, position))).toEqual(position);
  });

  it('takes the edges of the list\'s sort values and refuses one past either', () => {
    expect(decodePageToken(ORG_A, FROM_ONE, forged(['1', POSITION.id]))).toEqual({ after: '1', id: POSITION.id });
    expect(decodePageToken(ORG_A, FROM_ONE, forged(['1000', POSITION.id]))).toEqual({ after: '1000', id: POSITION.id });
    expect(decodePageToken(ORG_A, FROM_ONE, forged(['0', POSITION.id]))).toBeUndefined();
    expect(decodePageToken(ORG_A, FROM_ONE, forged(['1001', POSITION.id]))).toBeUndefined();
  });

  it('refuses a token of another organization or another filter', () => {
    const token = encodePageToken(ORG_A, POSITION);
    expect(decodePageToken(ORG_B, INT64, token)).toBeUndefined();
    expect(decodePageToken([...ORG_A.slice(0, 2), 'some-parent'], INT64, token)).toBeUndefined();
  });

  it('refuses every prefix of a real token (a truncated copy)', () => {
    const token = encodePageToken(ORG_A, POSITION);
    for (let length = 0; length < token.length; length++) expect(decodePageToken(ORG_A, INT64, token.slice(0, length))).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$def'],
    ['standard base64 padding', `${encodePageToken(ORG_A, POSITION)}=`],
    ['base64url of no JSON', Buffer.from('hello').toString('base64url')],
    ['JSON null', encoded(null)],
    ['a JSON object', encoded({ after: '1', id: POSITION.id })],
    ['a JSON string', encoded('1')],
    ['too few elements', encoded([1, tagOf(ORG_A), '1'])],
    ['too many elements', encoded([1, tagOf(ORG_A), '1', POSITION.id, 'x'])],
    ['another version', encoded([2, tagOf(ORG_A), '1', POSITION.id])],
    ['the version as a string', encoded(['1', tagOf(ORG_A), '1', POSITION.id])],
    ['very long', 'A'.repeat(600)],
  ])('refuses a made-up token: %s', (_case, token) => {
    expect(decodePageToken(ORG_A, INT64, token)).toBeUndefined();
  });

  it.each([
    ['past int64 (19 digits)', '9999999999999999999'],
    ['int64 max plus one', '9223372036854775808'],
    ['int64 min minus one', '-9223372036854775809'],
    ['20 digits', '12345678901234567890'],
    ['a fraction', '1.5'],
    ['an exponent', '1e3'],
    ['a plus sign', '+1'],
    ['leading zeros', '007'],
    ['minus zero', '-0'],
    ['white space', ' 1'],
    ['SQL', '1; DROP TABLE'],
    ['empty', ''],
  ])('refuses a token with the right tag whose position is not an int64 as the service writes it: %s', (_case, after) => {
    expect(decodePageToken(ORG_A, INT64, forged([after, POSITION.id]))).toBeUndefined();
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['an array', ['42']],
    ['an object', { value: '42' }],
    ['a boolean', true],
  ])('refuses a token with the right tag whose position is of the wrong type: %s', (_case, after) => {
    expect(decodePageToken(ORG_A, INT64, encoded([1, tagOf(ORG_A), after, POSITION.id]))).toBeUndefined();
  });

  it.each([
    ['not a uuid', 'x'],
    ['an upper-case uuid', POSITION.id.toUpperCase()],
    ['a number', 7],
    ['null', null],
  ])('refuses a token with the right tag whose id is wrong: %s', (_case, id) => {
    expect(decodePageToken(ORG_A, INT64, encoded([1, tagOf(ORG_A), '1', id]))).toBeUndefined();
  });
});

function encoded(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The query tag the encoder writes for `query`, read back out of a real token. */
function tagOf(query: readonly string[]): string {
  return (JSON.parse(Buffer.from(encodePageToken(query, POSITION), 'base64url').toString()) as [number, string])[1];
}

/** A token with the right version and tag for ORG_A but the given position fields. */
function forged([after, id]: [string, string]): string {
  return encoded([1, tagOf(ORG_A), after, id]);
}

describe('pages of rows', () => {
  const position = (n: number) => ({ after: String(n), id: `00000000-0000-4000-8000-00000000000${n}` });

  it('starts at the first page without a token, at the token\'s position with one, and refuses another query\'s token or an out-of-range one', () => {
    expect(startOfPage(ORG_A, INT64, undefined, 'parent_id')).toBeUndefined();
    expect(startOfPage(ORG_A, INT64, encodePageToken(ORG_A, POSITION), 'parent_id')).toEqual(POSITION);
    expect(() => startOfPage(ORG_B, INT64, encodePageToken(ORG_A, POSITION), 'parent_id')).toThrow(AppError);
    expect(() => startOfPage(ORG_A, FROM_ONE, forged(['0', POSITION.id]), 'parent_id')).toThrow(AppError);
  });

  it('keeps page_size rows and hands out a token at the last one only when an extra row came back', () => {
    const more = pageOfRows(ORG_A, [1, 2, 3], 2, position);
    expect(more.items).toEqual([1, 2]);
    expect(decodePageToken(ORG_A, INT64, more.next_page_token!)).toEqual(position(2));
    expect(pageOfRows(ORG_A, [1, 2], 2, position)).toEqual({ items: [1, 2], next_page_token: null });
    expect(pageOfRows(ORG_A, [], 2, position)).toEqual({ items: [], next_page_token: null });
  });
});
