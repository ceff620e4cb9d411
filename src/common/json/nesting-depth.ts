/** Deepest nesting of arrays and objects a JSON document may have (the API's bodies need 3). */
export const MAX_JSON_NESTING = 64;

/** Character codes of JSON's structure (also read by duplicate-members.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

const COLON = 0x3a;

/** What one scan of JSON text found: whether it nests deeper than the limit, and how many object members it holds. */
export interface JsonTextShape {
  tooDeep: boolean;
  /** Name-value pairs in all its objects, repeated names included (meaningless when tooDeep). */
  members: number;
}

/**
 * One scan of JSON text before it is parsed: whether it nests arrays and objects deeper than
 * `limit`, so that nothing recursive (validation, canonical forms, serializers) ever meets a
 * document deep enough to overflow the stack; and how many members its objects hold (the colons
 * outside strings), which the parsed value holds fewer of exactly when a name is repeated within
 * an object (see duplicate-members.ts). Brackets and colons inside strings do not count. On text
 * that is not JSON the answer means nothing, and the parser refuses that text anyway.
 */
export function scanJsonText(text: string, limit: number = MAX_JSON_NESTING): JsonTextShape {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === COLON) {
      members++;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return { tooDeep: true, members };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return { tooDeep: false, members };
}

/** Whether JSON text nests arrays and objects deeper than `limit` (scanJsonText). */
export function exceedsNestingDepth(text: string, limit: number = MAX_JSON_NESTING): boolean {
  return scanJsonText(text, limit).tooDeep;
}
