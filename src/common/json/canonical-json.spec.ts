import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at any depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"e":2,"f":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('gives one text for values that differ only in key order', () => {
    expect(canonicalJson({ x: { a: 1, b: 2 } })).toBe(canonicalJson({ x: { b: 2, a: 1 } }));
  });
});
