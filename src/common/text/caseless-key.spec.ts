import { caseFold, caselessKey } from './caseless-key';

const same = (a: string, b: string) => caselessKey(a) === caselessKey(b);

describe('caseless keys (NFC of full Unicode case folding)', () => {
  it.each([
    ['Café', 'CAFÉ', 'upper-case accented letters'],
    ['Café', 'Cafe\u0301', 'NFC and NFD spellings'],
    ['CAFE\u0301', 'café', 'NFD upper case and NFC lower case'],
    ['straße', 'STRASSE', 'ß folds to ss'],
    ['STRAẞE', 'strasse', 'capital sharp s folds to ss'],
    ['ﬁnance', 'FINANCE', 'the fi ligature folds to fi'],
    ['ΟΔΟΣ', 'οδος', 'final sigma and capital sigma fold to σ'],
    ['ὈΔΥΣΣΕΎΣ', 'ὀδυσσεύς', 'Greek with accents and breathing'],
    ['ᾼ', 'ᾳ', 'Greek capital with prosgegrammeni and small with ypogegrammeni'],
    ['ᾳ', 'αι', 'ypogegrammeni folds to iota, as full folding says'],
    ['\u212a', 'k', 'Kelvin sign'],
    ['\u212b', 'å', 'Ångström sign (NFC) and å'],
    ['µ', 'μ', 'micro sign and Greek mu'],
    ['İstanbul', 'i\u0307stanbul', 'capital I with dot folds to i and combining dot above'],
    ['ПРИВЕТ', 'привет', 'Cyrillic'],
    ['ᏣᎳᎩ', 'ꮳꮃꭹ', 'Cherokee capitals and small letters'],
    ['ǅ', 'ǆ', 'title-case digraph'],
  ])('treats %j and %j as the same name: %s', (a, b) => {
    expect(same(a, b)).toBe(true);
  });

  it.each([
    ['ı', 'i', 'dotless i is its own letter (default folding, not the Turkic one)'],
    ['ı', 'I', 'dotless i and capital I'],
    ['İ', 'i', 'capital I with dot and plain i'],
    ['Cafe', 'Café', 'accents count'],
    ['ss', 'ß ', 'other characters count'],
    ['Ｒesearch', 'Research', 'full-width letters stay apart (no compatibility folding)'],
    ['ﬁ', 'f', 'a ligature is two letters'],
  ])('keeps %j and %j apart: %s', (a, b) => {
    expect(same(a, b)).toBe(false);
  });

  it('writes the key in NFC, lower-case where folding says so, with nothing but case and form changed', () => {
    expect(caselessKey('Cafe\u0301')).toBe('caf\u00e9');
    expect(caselessKey('Research & Development 2')).toBe('research & development 2');
    expect(caselessKey('研究部')).toBe('研究部');
    expect(caselessKey('ΣΑΣ')).toBe('σασ');
  });

  it('folds the characters lower-casing leaves alone', () => {
    expect(caseFold('ß')).toBe('ss');
    expect(caseFold('ŉ')).toBe('\u02bcn');
    expect(caseFold('ς')).toBe('σ');
    expect(caseFold('ϐϑϕϖϰϱϵ')).toBe('βθφπκρε');
    expect(caseFold('\u0345')).toBe('ι');
    expect(caseFold('ﬀﬃﬄﬅﬆ')).toBe('ffffifflstst');
    expect(caseFold('\u1c80\u1c88')).toBe('\u0432\ua64b');
    expect(caseFold('ꭰᏸ')).toBe('ᎠᏰ');
  });

  it('is stable: the key of a key is the key', () => {
    for (const name of ['STRAẞE', 'ᾼ', 'İstanbul', 'ΟΔΟΣ', 'Cafe\u0301', 'ﬃ', 'ᏣᎳᎩ']) expect(caselessKey(caselessKey(name))).toBe(caselessKey(name));
  });

  it('never holds an upper-case ASCII letter (the migration marks legacy duplicates with some)', () => {
    const withUpperCase: number[] = [];
    for (let code = 0; code < 0x30000; code++) {
      if ((code < 0xd800 || code >= 0xe000) && /[A-Z]/.test(caselessKey(String.fromCodePoint(code)))) withUpperCase.push(code);
    }
    expect(withUpperCase).toEqual([]);
  });
});
