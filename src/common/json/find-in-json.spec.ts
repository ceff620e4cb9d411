import { findInJson } from './find-in-json';

const hasX = (text: string) => (text.includes('x') ? 'has_x' : undefined);

describe('findInJson', () => {
  it('names the first key or string in document order, as validation names fields', () => {
    expect(findInJson({ a: 'ok', b: [{ c: 'ok' }, { d: 'x' }], e: 'x' }, hasX)).toEqual({ path: 'b[1].d', reason: 'has_x' });
    expect(findInJson({ a: 'ok', bx: 1, c: 'x' }, hasX)).toEqual({ path: 'bx', reason: 'has_x' });
    expect(findInJson(['ok', 'x'], hasX)).toEqual({ path: '[1]', reason: 'has_x' });
  });

  it('tells keys from values', () => {
    const keysOnly = (text: string, isKey: boolean) => (isKey && text === 'k' ? 'key' : undefined);
    expect(findInJson({ a: 'k', b: { k: 1 } }, keysOnly)).toEqual({ path: 'b.k', reason: 'key' });
  });

  it('sees __proto__ as JSON.parse keeps it: an own key', () => {
    const isProto = (text: string, isKey: boolean) => (isKey && text === '__proto__' ? 'proto' : undefined);
    expect(findInJson(JSON.parse('{"a":{"__proto__":{"polluted":true}}}'), isProto)).toEqual({ path: 'a.__proto__', reason: 'proto' });
  });

  it('returns undefined when nothing is found, and ignores numbers, booleans and null', () => {
    expect(findInJson({ a: 1, b: true, c: null, d: ['ok'] }, hasX)).toBeUndefined();
  });

  it('walks deep values without recursion', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 20000; i++) deep = [deep];
    expect(findInJson(deep, hasX)?.path).toBe('[0]'.repeat(20000));
  });
});
