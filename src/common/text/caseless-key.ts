/**
 * The key under which two texts are "the same ignoring case": Unicode canonical caseless matching
 * (Unicode 15.0, section 3.13, D145) with full default case folding (CaseFolding.txt, statuses C
 * and F; not the Turkic T mappings), written in NFC. Two texts have equal keys exactly when
 * NFD(toCasefold(NFD(a))) = NFD(toCasefold(NFD(b))), so it does not depend on a locale, the
 * database's or the process's.
 *
 * JavaScript has no casefold(): full case folding equals the locale-free full lower-case mapping
 * (toLowerCase) except for the characters below, which lower-casing leaves as they are but case
 * folding maps on (ß → ss, ligatures, Greek symbol forms, ypogegrammeni → ι, final sigma → σ...).
 * After NFD, the precomposed forms of those (ᾳ, ΐ, ǰ...) are already split, so only these remain.
 * The table was checked against Python's str.casefold() for every code point of Unicode 14, and
 * the SQL function caseless_key() (prisma/migrations, sibling_names_by_case_folding) computes the
 * same key in the database (test/caseless-key.e2e-spec.ts compares them on every code point).
 */
const FOLDED_AFTER_LOWER_CASE: Readonly<Record<string, string>> = {
  '\u00b5': '\u03bc', // micro sign → μ
  '\u00df': 'ss', // ß
  '\u0149': '\u02bcn', // ŉ
  '\u017f': 's', // ſ
  '\u0345': '\u03b9', // combining ypogegrammeni → ι
  '\u03c2': '\u03c3', // ς → σ
  '\u03d0': '\u03b2', // ϐ → β
  '\u03d1': '\u03b8', // ϑ → θ
  '\u03d5': '\u03c6', // ϕ → φ
  '\u03d6': '\u03c0', // ϖ → π
  '\u03f0': '\u03ba', // ϰ → κ
  '\u03f1': '\u03c1', // ϱ → ρ
  '\u03f5': '\u03b5', // ϵ → ε
  '\u0587': '\u0565\u0582', // Armenian ligature ech yiwn
  '\u1c80': '\u0432', // Cyrillic small letter variants
  '\u1c81': '\u0434',
  '\u1c82': '\u043e',
  '\u1c83': '\u0441',
  '\u1c84': '\u0442',
  '\u1c85': '\u0442',
  '\u1c86': '\u044a',
  '\u1c87': '\u0463',
  '\u1c88': '\ua64b',
  '\u1e9a': 'a\u02be', // ẚ
  '\ufb00': 'ff', // Latin ligatures
  '\ufb01': 'fi',
  '\ufb02': 'fl',
  '\ufb03': 'ffi',
  '\ufb04': 'ffl',
  '\ufb05': 'st',
  '\ufb06': 'st',
  '\ufb13': '\u0574\u0576', // Armenian ligatures
  '\ufb14': '\u0574\u0565',
  '\ufb15': '\u0574\u056b',
  '\ufb16': '\u057e\u0576',
  '\ufb17': '\u0574\u056d',
};

// Cherokee folds to its capital letters (the older ones), which lower-casing maps the other way.
const CHEROKEE_SMALL = /[\u13f8-\u13fd\uab70-\uabbf]/;
const CHEROKEE_SMALL_TO_CAPITAL = (small: number) => (small >= 0xab70 ? small - 0xab70 + 0x13a0 : small - 8);

const FOLDED_AFTER_LOWER_CASE_PATTERN = new RegExp(`[${Object.keys(FOLDED_AFTER_LOWER_CASE).join('')}]|${CHEROKEE_SMALL.source}`, 'gu');

/** Full default case folding of `text` (String.prototype.toLowerCase is locale-free). */
export function caseFold(text: string): string {
  return text
    .toLowerCase()
    .replace(FOLDED_AFTER_LOWER_CASE_PATTERN, (character) => FOLDED_AFTER_LOWER_CASE[character] ?? String.fromCodePoint(CHEROKEE_SMALL_TO_CAPITAL(character.codePointAt(0)!)));
}

/** The comparison key of `text`: NFC of its canonical case folding. */
export function caselessKey(text: string): string {
  return caseFold(text.normalize('NFD')).normalize('NFC');
}
