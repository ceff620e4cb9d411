import { findDuplicateMember } from './duplicate-members';
import { scanJsonText } from './nesting-depth';

const duplicateIn = (text: string) => findDuplicateMember(text, JSON.parse(text), scanJsonText(text).members);

describe('findDuplicateMember', () => {
  it('finds nothing where every object names each member once', () => {
    expect(duplicateIn('{}')).toBeUndefined();
    expect(duplicateIn('{"a":1,"b":{"a":2,"c":[{"a":3},{"a":4}]},"d":"a:b:c"}')).toBeUndefined();
    expect(duplicateIn('[{"x":1},{"x":1}]')).toBeUndefined();
    expect(duplicateIn('{"__proto__":{},"constructor":1}')).toBeUndefined();
  });

  it('names the first repeated member by its path', () => {
    expect(duplicateIn('{"name":"a","name":"b"}')).toBe('name');
    expect(duplicateIn('{"a":{"b":1, "c" : 2 ,"b":3}}')).toBe('a.b');
    expect(duplicateIn('{"refs":[{"id":"x"},{"id":"y","required":true,"id":"z"}]}')).toBe('refs[1].id');
    expect(duplicateIn('{"x":{"y":1,"y":2},"x":3}')).toBe('x.y');
  });

  it('compares names after unescaping, and ignores colons, quotes and brackets inside strings', () => {
    expect(duplicateIn('{"a":1,"\\u0061":2}')).toBe('a');
    expect(duplicateIn('{"k:\\"}":"v:{}[","k:\\"}":"w"}')).toBe('k:"}');
    expect(duplicateIn('{"__proto__":1,"__proto__":2}')).toBe('__proto__');
  });

  it('reads literals, numbers and white space between tokens', () => {
    expect(duplicateIn('{ "a" : [ true , false , null , -1.5e3 ] ,\n\t"b" : 0 , "a" : { } }')).toBe('a');
    expect(duplicateIn('{"e":[],"o":{},"n":null,"n":1}')).toBe('n');
  });
});
