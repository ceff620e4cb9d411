import { joinPath } from './find-in-json';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './nesting-depth';
const WHITE_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const END_OF_LITERAL = new Set([0x2c, CLOSE_BRACE, CLOSE_BRACKET, ...WHITE_SPACE]);

/**
 * The path (`a.b[0].c`) of the first member whose name its object already holds, in a JSON text
 * that `parsed` was parsed from; undefined when no name repeats (I-JSON, RFC 7493: JSON.parse
 * would silently keep the last one). `memberCount` is what scanJsonText counted in the text: the
 * parsed value holds as many keys exactly when no name repeats, so the text is read again, name by
 * name, only when one does.
 */
export function findDuplicateMember(text: string, parsed: unknown, memberCount: number): string | undefined {
  if (countKeys(parsed) === memberCount) return undefined;
  return new DuplicateFinder(text).value('');
}

/** The own keys of every object in a parsed JSON value, without recursion. */
function countKeys(root: unknown): number {
  let keys = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const element of value) if (typeof element === 'object' && element !== null) pending.push(element);
    } else {
      for (const key in value) {
        keys++;
        const member = (value as Record<string, unknown>)[key];
        if (typeof member === 'object' && member !== null) pending.push(member);
      }
    }
  }
  return keys;
}

/**
 * Reads valid JSON text (it has been parsed already) keeping each object's names. Recursive: the
 * text is known to nest at most MAX_JSON_NESTING levels.
 */
class DuplicateFinder {
  private at = 0;

  constructor(private readonly text: string) {}

  value(path: string): string | undefined {
    this.skipWhiteSpace();
    const c = this.text.charCodeAt(this.at);
    if (c === OPEN_BRACE) return this.object(path);
    if (c === OPEN_BRACKET) return this.array(path);
    if (c === QUOTE) this.string();
    else while (this.at < this.text.length && !END_OF_LITERAL.has(this.text.charCodeAt(this.at))) this.at++;
    return undefined;
  }

  private object(path: string): string | undefined {
    this.at++;
    if (this.next() === CLOSE_BRACE) return this.close();
    const names = new Set<string>();
    for (;;) {
      this.skipWhiteSpace();
      const name = this.string();
      const memberPath = joinPath(path, name);
      if (names.has(name)) return memberPath;
      names.add(name);
      this.skipWhiteSpace();
      this.at++; // the colon
      const found = this.value(memberPath);
      if (found !== undefined) return found;
      if (this.next() === CLOSE_BRACE) return this.close();
      this.at++; // the comma
    }
  }

  private array(path: string): string | undefined {
    this.at++;
    if (this.next() === CLOSE_BRACKET) return this.close();
    for (let index = 0; ; index++) {
      const found = this.value(`${path}[${index}]`);
      if (found !== undefined) return found;
      if (this.next() === CLOSE_BRACKET) return this.close();
      this.at++; // the comma
    }
  }

  /** The string at the cursor, unescaped. */
  private string(): string {
    const start = this.at++;
    while (this.text.charCodeAt(this.at) !== QUOTE) this.at += this.text.charCodeAt(this.at) === BACKSLASH ? 2 : 1;
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  /** The next character that is not white space, without passing it. */
  private next(): number {
    this.skipWhiteSpace();
    return this.text.charCodeAt(this.at);
  }

  private close(): undefined {
    this.at++;
    return undefined;
  }

  private skipWhiteSpace(): void {
    while (WHITE_SPACE.has(this.text.charCodeAt(this.at))) this.at++;
  }
}
