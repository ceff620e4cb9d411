import { exceedsNestingDepth } from './nesting-depth';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('exceedsNestingDepth', () => {
  it('allows up to the limit and refuses one level more', () => {
    expect(exceedsNestingDepth(nested(64), 64)).toBe(false);
    expect(exceedsNestingDepth(nested(65), 64)).toBe(true);
    expect(exceedsNestingDepth(`{"a":${nested(63)}}`, 64)).toBe(false);
    expect(exceedsNestingDepth(`{"a":${nested(64)}}`, 64)).toBe(true);
  });

  it('counts depth, not brackets: siblings do not add up', () => {
    expect(exceedsNestingDepth(`[${Array.from({ length: 100 }, () => '{}').join(',')}]`, 2)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(exceedsNestingDepth(`{"a":"${'['.repeat(100)}"}`, 2)).toBe(false);
    expect(exceedsNestingDepth(`{"a\\"[[[":"\\\\","b":"${'{'.repeat(100)}"}`, 2)).toBe(false);
    expect(exceedsNestingDepth(`{"a":"\\"",${nested(5)}}`, 4)).toBe(true);
  });

  it('scans 2,000 levels without recursion', () => {
    expect(exceedsNestingDepth(`{"name":"d","x":${nested(2000)}}`)).toBe(true);
  });
});
