import { AppError } from '../errors/app-error';
import { ifNoneMatchHolds, parseIfMatch, revisionETag } from './entity-tags';

describe('If-Match on revisioned resources', () => {
  it('reads *, one strong tag holding a revision, and nothing', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('*')).toEqual({ kind: 'any' });
    expect(parseIfMatch('"3"')).toEqual({ kind: 'revision', revision: 3 });
    expect(parseIfMatch(' "12" ')).toEqual({ kind: 'revision', revision: 12 });
    expect(parseIfMatch(revisionETag(9007199254740991))).toEqual({ kind: 'revision', revision: 9007199254740991 });
  });

  it.each([
    ['a weak tag', 'W/"3"'],
    ['a list', '"3", "4"'],
    ['an unquoted number', '3'],
    ['zero', '"0"'],
    ['a negative number', '"-1"'],
    ['a leading zero', '"03"'],
    ['a fraction', '"1.5"'],
    ['past 2^53 - 1', '"9007199254740992"'],
    ['not a number', '"abc"'],
    ['empty', ''],
  ])('refuses %s as invalid_format naming If-Match', (_case, header) => {
    let thrown: unknown;
    try {
      parseIfMatch(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).details).toEqual({ field: 'If-Match', reason: 'invalid_format' });
  });
});

describe('If-None-Match on revisioned resources', () => {
  it.each([
    ['the tag', '"3"', true],
    ['the tag, weak', 'W/"3"', true],
    ['the tag in a list', '"1", W/"3" ,"7"', true],
    ['any tag', '*', true],
    ['another tag', '"4"', false],
    ['a list without the tag', '"1", "33"', false],
    ['the revision unquoted', '3', false],
    ['nothing', undefined, false],
  ])('holds for %s: %s', (_case, header, holds) => {
    expect(ifNoneMatchHolds(header, revisionETag(3))).toBe(holds);
  });
});
