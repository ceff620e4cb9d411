import { badScimRequest, type ScimErrorType } from './scim-error';

// Our own parser rather than scim2-parse-filter's: that one decodes string escapes wrongly ("a\\b"
// reads as two backslashes, "\u00e9" stays six characters, "a\\" fails), turns
// `emails[type eq "work"].value co "x"` into two conditions that different e-mails may meet, and
// accepts nested value paths. The grammar is small enough to follow RFC 7644 §3.4.2.2 exactly.

export type CompareOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type CompareValue = string | number | boolean | null;

/** An attribute as a filter or a PATCH path names it, spelt as written: `[uri ":"] name ["." subAttribute]`. */
export interface AttributePath {
  uri?: string;
  name: string;
  subAttribute?: string;
  /** The whole path as written, for error details. */
  text: string;
}

export type ScimFilter =
  | { op: CompareOperator; path: AttributePath; value: CompareValue }
  | { op: 'pr'; path: AttributePath }
  | { op: 'and' | 'or'; filters: ScimFilter[] }
  | { op: 'not'; filter: ScimFilter }
  /** `emails[type eq "work"]`: some element of the multi-valued attribute meets `filter`, whose paths name its sub-attributes. */
  | { op: 'valuePath'; path: AttributePath; filter: ScimFilter };

/** A PATCH operation's path (RFC 7644 §3.5.2): `attrPath`, or `valuePath` with an optional sub-attribute. */
export interface PatchPath {
  path: AttributePath;
  /** The value filter of `members[value eq "…"]`. */
  filter?: ScimFilter;
  /** The `value` of `emails[type eq "work"].value`. */
  subAttribute?: string;
}

const COMPARE_OPERATORS: ReadonlySet<string> = new Set<CompareOperator>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const ATTRIBUTE_NAME = '[A-Za-z$][A-Za-z0-9_$-]*';
// The URI ends at the last colon: attribute names have none, schema URNs ("…:2.0:User") several.
const ATTRIBUTE_PATH = new RegExp(`^(?:(?<uri>[A-Za-z][A-Za-z0-9+.:_-]*):)?(?<name>${ATTRIBUTE_NAME})(?:\\.(?<subAttribute>${ATTRIBUTE_NAME}))?$`);
const SUB_ATTRIBUTE = new RegExp(`^\\.(${ATTRIBUTE_NAME})$`);
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const KEYWORD_VALUES: Readonly<Record<string, CompareValue>> = { true: true, false: false, null: null };
// Parentheses and `not` nest the parser's recursion: a bound keeps a hostile filter from exhausting the stack.
const MAX_NESTING = 64;

/** The filter of a `filter` parameter, or 400 invalidFilter saying where it goes wrong. */
export function parseScimFilter(text: string): ScimFilter {
  const parser = new Parser(text, 'invalidFilter');
  const filter = parser.orExpression(false);
  parser.expectEnd();
  return filter;
}

/** A PATCH operation's path, or 400 invalidPath saying where it goes wrong. */
export function parsePatchPath(text: string): PatchPath {
  const parser = new Parser(text, 'invalidPath');
  const patchPath = parser.patchPath();
  parser.expectEnd();
  return patchPath;
}

/** `text` read as `[uri ":"] name ["." subAttribute]`, or undefined when it is not one. */
export function readAttributePath(text: string): AttributePath | undefined {
  const groups = ATTRIBUTE_PATH.exec(text)?.groups;
  if (groups === undefined) return undefined;
  return {
    ...(groups.uri === undefined ? {} : { uri: groups.uri }),
    name: groups.name,
    ...(groups.subAttribute === undefined ? {} : { subAttribute: groups.subAttribute }),
    text,
  };
}

type Token =
  | { kind: 'word'; text: string; at: number; end: number }
  | { kind: 'string'; value: string; at: number; end: number }
  | { kind: '(' | ')' | '[' | ']' | 'end'; at: number; end: number };

const WHITE_SPACE = /\s+/y;
const WORD = /[^\s()[\]"]+/y;
const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private nesting = 0;

  constructor(
    private readonly text: string,
    private readonly scimType: ScimErrorType,
  ) {
    this.tokens = this.tokenize();
  }

  orExpression(inValuePath: boolean): ScimFilter {
    return this.logical('or', () => this.andExpression(inValuePath));
  }

  patchPath(): PatchPath {
    const path = this.attributePath(this.word('an attribute path'));
    if (this.peek().kind !== '[') return { path };
    const filter = this.valueFilter(path);
    const subAttribute = this.subAttributeAfter(this.previous());
    return subAttribute === undefined ? { path, filter } : { path, filter, subAttribute: subAttribute.name };
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind !== 'end') throw this.failure(`unexpected ${this.describe(token)}`);
  }

  private andExpression(inValuePath: boolean): ScimFilter {
    return this.logical('and', () => this.unary(inValuePath));
  }

  private logical(op: 'and' | 'or', operand: () => ScimFilter): ScimFilter {
    const filters = [operand()];
    while (this.isWord(this.peek(), op)) {
      this.index++;
      filters.push(operand());
    }
    return filters.length === 1 ? filters[0] : { op, filters: filters.flatMap((filter) => (filter.op === op ? filter.filters : [filter])) };
  }

  private unary(inValuePath: boolean): ScimFilter {
    const token = this.peek();
    if (token.kind === '(') {
      this.index++;
      return this.nested(() => this.parenthesised(inValuePath));
    }
    if (this.isWord(token, 'not') && this.tokens[this.index + 1].kind === '(') {
      this.index += 2;
      return { op: 'not', filter: this.nested(() => this.parenthesised(inValuePath)) };
    }
    if (this.isWord(token, 'not')) throw this.failure(`"not" must be followed by a parenthesised filter, at character ${token.end + 1}`);
    return this.attributeExpression(inValuePath);
  }

  private nested(parse: () => ScimFilter): ScimFilter {
    if (++this.nesting > MAX_NESTING) throw this.failure(`it nests parentheses deeper than ${MAX_NESTING} levels`);
    const filter = parse();
    this.nesting--;
    return filter;
  }

  private parenthesised(inValuePath: boolean): ScimFilter {
    const filter = this.orExpression(inValuePath);
    this.expect(')');
    return filter;
  }

  private attributeExpression(inValuePath: boolean): ScimFilter {
    const path = this.attributePath(this.word('an attribute name or "("'));
    if (this.peek().kind !== '[') return this.condition(path);
    if (inValuePath) throw this.failure(`value paths cannot nest, at ${this.describe(this.peek())}`);
    const filter = this.valueFilter(path);
    const subAttribute = this.subAttributeAfter(this.previous());
    // `emails[type eq "work"].value co "x"` asks for one e-mail that is both: the element's filter grows.
    if (subAttribute === undefined) return { op: 'valuePath', path, filter };
    const condition = this.condition(subAttribute);
    return { op: 'valuePath', path, filter: { op: 'and', filters: [...(filter.op === 'and' ? filter.filters : [filter]), condition] } };
  }

  private valueFilter(path: AttributePath): ScimFilter {
    if (path.subAttribute !== undefined) throw this.failure(`a value filter applies to an attribute, not to the sub-attribute "${path.text}"`);
    this.expect('[');
    const filter = this.nested(() => this.orExpression(true));
    this.expect(']');
    return filter;
  }

  /** `.value` written right after the `]` at `bracket`, if there is one. */
  private subAttributeAfter(bracket: Token): AttributePath | undefined {
    const token = this.peek();
    if (token.kind !== 'word' || token.at !== bracket.end || !token.text.startsWith('.')) return undefined;
    const name = SUB_ATTRIBUTE.exec(token.text)?.[1];
    if (name === undefined) throw this.failure(`"${token.text}" at character ${token.at + 1} is not a sub-attribute name`);
    this.index++;
    return { name, text: name };
  }

  private condition(path: AttributePath): ScimFilter {
    const token = this.peek();
    const op = token.kind === 'word' ? token.text.toLowerCase() : '';
    if (op === 'pr') {
      this.index++;
      return { op, path };
    }
    if (!COMPARE_OPERATORS.has(op)) throw this.failure(`expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) after "${path.text}", found ${this.describe(token)}`);
    this.index++;
    return { op: op as CompareOperator, path, value: this.compareValue() };
  }

  private compareValue(): CompareValue {
    const token = this.peek();
    this.index++;
    if (token.kind === 'string') return token.value;
    if (token.kind === 'word') {
      const keyword = token.text.toLowerCase();
      if (keyword in KEYWORD_VALUES) return KEYWORD_VALUES[keyword];
      if (JSON_NUMBER.test(token.text)) return Number(token.text);
    }
    throw this.failure(`expected a value (a string in double quotes, a number, true, false or null), found ${this.describe(token)}`);
  }

  private attributePath(token: Token & { kind: 'word' }): AttributePath {
    const path = readAttributePath(token.text);
    if (path === undefined) throw this.failure(`"${token.text}" at character ${token.at + 1} is not an attribute path`);
    return path;
  }

  private word(expected: string): Token & { kind: 'word' } {
    const token = this.peek();
    if (token.kind !== 'word') throw this.failure(`expected ${expected}, found ${this.describe(token)}`);
    this.index++;
    return token;
  }

  private expect(kind: ')' | '[' | ']'): void {
    const token = this.peek();
    if (token.kind !== kind) throw this.failure(`expected "${kind}", found ${this.describe(token)}`);
    this.index++;
  }

  private isWord(token: Token, word: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === word;
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private previous(): Token {
    return this.tokens[this.index - 1];
  }

  private describe(token: Token): string {
    if (token.kind === 'end') return 'the end of the text';
    return `"${this.text.slice(token.at, token.end)}" at character ${token.at + 1}`;
  }

  private failure(reason: string) {
    const subject = this.scimType === 'invalidPath' ? 'The path' : 'The filter';
    return badScimRequest(this.scimType, `${subject} does not parse: ${reason}.`);
  }

  private tokenize(): Token[] {
    const tokens: Token[] = [];
    let at = 0;
    const match = (pattern: RegExp) => {
      pattern.lastIndex = at;
      return pattern.exec(this.text)?.[0];
    };
    while (at < this.text.length) {
      const space = match(WHITE_SPACE);
      if (space !== undefined) {
        at += space.length;
        continue;
      }
      const character = this.text[at];
      if (character === '(' || character === ')' || character === '[' || character === ']') {
        tokens.push({ kind: character, at, end: at + 1 });
        at += 1;
      } else if (character === '"') {
        const quoted = match(JSON_STRING);
        if (quoted === undefined) throw this.failure(`the string at character ${at + 1} has no closing quote or an invalid escape`);
        tokens.push({ kind: 'string', value: JSON.parse(quoted) as string, at, end: at + quoted.length });
        at += quoted.length;
      } else {
        const word = match(WORD)!;
        tokens.push({ kind: 'word', text: word, at, end: at + word.length });
        at += word.length;
      }
    }
    tokens.push({ kind: 'end', at, end: at });
    return tokens;
  }
}
