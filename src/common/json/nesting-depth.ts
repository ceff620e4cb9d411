/** Deepest nesting of arrays and objects a JSON document may have (the API's bodies need 3). */
export const MAX_JSON_NESTING = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one scan of the text
 * before it is parsed, so that nothing recursive (validation, canonical forms, serializers) ever
 * meets a document deep enough to overflow the stack. Brackets inside strings do not count. On text
 * that is not JSON the answer means nothing, and the parser refuses that text anyway.
 */
export function exceedsNestingDepth(text: string, limit: number = MAX_JSON_NESTING): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
