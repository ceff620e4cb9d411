/**
 * Page tokens made up from a real one, for tests that a list refuses what it did not issue: the
 * same version and query tag (so only the changed part can make it fail), another position or shape.
 */

function decode(token: string): unknown[] {
  return JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** `token` with its position's sort value (and, if given, id) replaced by any JSON value. */
export function withPosition(token: string, after: unknown, id?: unknown): string {
  const [version, tag, , tokenId] = decode(token);
  return encode([version, tag, after, id === undefined ? tokenId : id]);
}

/**
 * Tokens no list issues, each with the right tag where it has one: garbage, truncated, JSON of other
 * shapes and types, and sort values that are not int64 as the service writes them.
 */
export function forgedTokens(realToken: string): Array<[string, string]> {
  const [version, tag, after, id] = decode(realToken);
  return [
    ['garbage', 'bm90LWEtdG9rZW4'],
    ['SQL', "1' OR '1'='1"],
    ['truncated by one character', realToken.slice(0, -1)],
    ['truncated to half', realToken.slice(0, Math.floor(realToken.length / 2))],
    ['over 512 characters', realToken.repeat(Math.ceil(513 / realToken.length))],
    ['JSON null', encode(null)],
    ['a JSON object', encode({ version, tag, after, id })],
    ['an array of three', encode([version, tag, after])],
    ['an array of five', encode([version, tag, after, id, 'extra'])],
    ['another version', encode([Number(version) + 1, tag, after, id])],
    ['a position past int64 (19 nines)', withPosition(realToken, '9999999999999999999')],
    ['a position of 20 digits', withPosition(realToken, '18446744073709551616')],
    ['a position one below int64 min', withPosition(realToken, '-9223372036854775809')],
    ['a position with a fraction', withPosition(realToken, '1.5')],
    ['a position with an exponent', withPosition(realToken, '1e3')],
    ['a position with leading zeros', withPosition(realToken, '0001')],
    ['a position that is a JSON number', withPosition(realToken, Number(after))],
    ['a position that is null', withPosition(realToken, null)],
    ['a position that is an array', withPosition(realToken, [after])],
    ['an id that is not a uuid', withPosition(realToken, after, 'x')],
    ['an id that is a number', withPosition(realToken, after, 1)],
  ];
}
