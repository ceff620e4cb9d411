import { parsePatchPath, parseScimFilter, type ScimFilter } from './filter-parser';

const path = (text: string, name = text, subAttribute?: string, uri?: string) => ({ ...(uri ? { uri } : {}), name, ...(subAttribute ? { subAttribute } : {}), text });


describe('parseScimFilter', () => {
  describe('the examples of RFC 7644 §3.4.2.2', () => {
    it('userName eq "bjensen"', () => {
      expect(parseScimFilter('userName eq "bjensen"')).toEqual({ op: 'eq', path: path('userName'), value: 'bjensen' });
    });

    it(`name.familyName co "O'Malley"`, () => {
      expect(parseScimFilter(`name.familyName co "O'Malley"`)).toEqual({ op: 'co', path: path('name.familyName', 'name', 'familyName'), value: "O'Malley" });
    });

    it('userName sw "J", title pr, meta.lastModified gt "2011-05-13T04:42:34Z"', () => {
      expect(parseScimFilter('userName sw "J"')).toEqual({ op: 'sw', path: path('userName'), value: 'J' });
      expect(parseScimFilter('title pr')).toEqual({ op: 'pr', path: path('title') });
      expect(parseScimFilter('meta.lastModified gt "2011-05-13T04:42:34Z"')).toEqual({
        op: 'gt',
        path: path('meta.lastModified', 'meta', 'lastModified'),
        value: '2011-05-13T04:42:34Z',
      });
    });

    it('a fully qualified name: urn:ietf:params:scim:schemas:core:2.0:User:name.familyName', () => {
      expect(parseScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName eq "Jensen"')).toEqual({
        op: 'eq',
        path: path('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName', 'name', 'familyName', 'urn:ietf:params:scim:schemas:core:2.0:User'),
        value: 'Jensen',
      });
    });

    it('title pr and userType eq "Employee"; title pr or userType eq "Intern"', () => {
      expect(parseScimFilter('title pr and userType eq "Employee"')).toEqual({
        op: 'and',
        filters: [
          { op: 'pr', path: path('title') },
          { op: 'eq', path: path('userType'), value: 'Employee' },
        ],
      });
      expect(parseScimFilter('title pr or userType eq "Intern"').op).toBe('or');
    });

    it('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")', () => {
      expect(parseScimFilter('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")')).toEqual({
        op: 'and',
        filters: [
          { op: 'eq', path: path('userType'), value: 'Employee' },
          {
            op: 'or',
            filters: [
              { op: 'co', path: path('emails'), value: 'example.com' },
              { op: 'co', path: path('emails.value', 'emails', 'value'), value: 'example.org' },
            ],
          },
        ],
      });
    });

    it('userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")', () => {
      const filter = parseScimFilter('userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")');
      expect(filter).toMatchObject({ op: 'and', filters: [{ op: 'ne' }, { op: 'not', filter: { op: 'or' } }] });
    });

    it('emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]', () => {
      expect(parseScimFilter('emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]')).toEqual({
        op: 'or',
        filters: [
          {
            op: 'valuePath',
            path: path('emails'),
            filter: {
              op: 'and',
              filters: [
                { op: 'eq', path: path('type'), value: 'work' },
                { op: 'co', path: path('value'), value: '@example.com' },
              ],
            },
          },
          {
            op: 'valuePath',
            path: path('ims'),
            filter: {
              op: 'and',
              filters: [
                { op: 'eq', path: path('type'), value: 'xmpp' },
                { op: 'co', path: path('value'), value: '@foo.com' },
              ],
            },
          },
        ],
      });
    });
  });

  it('reads operators, logical words and literals in any case', () => {
    expect(parseScimFilter('userName EQ "a" AND active Eq TRUE Or NOT (title PR)')).toEqual({
      op: 'or',
      filters: [
        {
          op: 'and',
          filters: [
            { op: 'eq', path: path('userName'), value: 'a' },
            { op: 'eq', path: path('active'), value: true },
          ],
        },
        { op: 'not', filter: { op: 'pr', path: path('title') } },
      ],
    });
  });

  it('binds and tighter than or, and parentheses tighter than both', () => {
    const leaf = (name: string): ScimFilter => ({ op: 'pr', path: path(name) });
    expect(parseScimFilter('a pr or b pr and c pr')).toEqual({ op: 'or', filters: [leaf('a'), { op: 'and', filters: [leaf('b'), leaf('c')] }] });
    expect(parseScimFilter('(a pr or b pr) and c pr')).toEqual({ op: 'and', filters: [{ op: 'or', filters: [leaf('a'), leaf('b')] }, leaf('c')] });
    expect(parseScimFilter('a pr or b pr or c pr')).toEqual({ op: 'or', filters: [leaf('a'), leaf('b'), leaf('c')] });
  });

  it('decodes strings as JSON strings', () => {
    const valueOf = (filter: string) => (parseScimFilter(filter) as { value: unknown }).value;
    expect(valueOf(String.raw`userName eq "a\\b"`)).toBe('a\\b');
    expect(valueOf(String.raw`userName eq "a\"b"`)).toBe('a"b');
    expect(valueOf(String.raw`userName eq "caf\u00e9"`)).toBe('café');
    expect(valueOf(String.raw`userName eq "ends with \\"`)).toBe('ends with \\');
    expect(valueOf('userName eq "with ( and ] and  two spaces"')).toBe('with ( and ] and  two spaces');
    expect(valueOf('userName eq ""')).toBe('');
  });

  it('reads numbers, true, false and null', () => {
    const valueOf = (filter: string) => (parseScimFilter(filter) as { value: unknown }).value;
    expect(valueOf('x eq 12')).toBe(12);
    expect(valueOf('x eq -1.5e3')).toBe(-1500);
    expect(valueOf('x eq false')).toBe(false);
    expect(valueOf('x eq Null')).toBeNull();
  });

  it('reads the value path members[value eq "…"] (a group lookup by member)', () => {
    expect(parseScimFilter('members[value eq "2819c223-7f76-453a-919d-413861904646"]')).toEqual({
      op: 'valuePath',
      path: path('members'),
      filter: { op: 'eq', path: path('value'), value: '2819c223-7f76-453a-919d-413861904646' },
    });
  });

  it('reads emails[type eq "work"].value co "x" as one e-mail that is both work and contains x', () => {
    expect(parseScimFilter('emails[type eq "work"].value co "x"')).toEqual({
      op: 'valuePath',
      path: path('emails'),
      filter: {
        op: 'and',
        filters: [
          { op: 'eq', path: path('type'), value: 'work' },
          { op: 'co', path: path('value'), value: 'x' },
        ],
      },
    });
  });

  it.each([
    ['', 'expected an attribute name or "(", found the end of the text'],
    ['userName', 'expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) after "userName", found the end of the text'],
    ['userName is "x"', 'expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) after "userName", found "is" at character 10'],
    ['userName eq', 'expected a value (a string in double quotes, a number, true, false or null), found the end of the text'],
    ['userName eq bjensen', 'expected a value (a string in double quotes, a number, true, false or null), found "bjensen" at character 13'],
    ['userName eq "bjensen', 'the string at character 13 has no closing quote or an invalid escape'],
    [String.raw`userName eq "a\qb"`, 'the string at character 13 has no closing quote or an invalid escape'],
    ['(userName eq "a"', 'expected ")", found the end of the text'],
    ['userName eq "a")', 'unexpected ")" at character 16'],
    ['userName eq "a" title pr', 'unexpected "title" at character 17'],
    ['userName eq "a" and', 'expected an attribute name or "(", found the end of the text'],
    ['not userName eq "a"', '"not" must be followed by a parenthesised filter, at character 4'],
    ['emails[type eq "work"', 'expected "]", found the end of the text'],
    ['emails[type[value eq "x"] pr]', 'value paths cannot nest, at "[" at character 12'],
    ['name.givenName[value eq "x"]', 'a value filter applies to an attribute, not to the sub-attribute "name.givenName"'],
    ['emails[type eq "work"].1x eq "a"', '".1x" at character 23 is not a sub-attribute name'],
    ['emails[type eq "work"].value', 'expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) after "value", found the end of the text'],
    ['name.given.name eq "x"', '"name.given.name" at character 1 is not an attribute path'],
    ['1abc eq "x"', '"1abc" at character 1 is not an attribute path'],
  ])('refuses %j: 400 invalidFilter', (filter, reason) => {
    expect(() => parseScimFilter(filter)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter', detail: `The filter does not parse: ${reason}.` }));
  });

  it('refuses a filter nested deeper than 64 levels rather than exhausting the stack', () => {
    expect(parseScimFilter(`${'('.repeat(64)}title pr${')'.repeat(64)}`)).toEqual({ op: 'pr', path: path('title') });
    expect(() => parseScimFilter(`${'not ('.repeat(10_000)}title pr${')'.repeat(10_000)}`)).toThrow(
      expect.objectContaining({ scimType: 'invalidFilter', detail: 'The filter does not parse: it nests parentheses deeper than 64 levels.' }),
    );
  });
});

describe('parsePatchPath', () => {
  it('reads an attribute, a sub-attribute and an extension attribute', () => {
    expect(parsePatchPath('displayName')).toEqual({ path: path('displayName') });
    expect(parsePatchPath('name.givenName')).toEqual({ path: path('name.givenName', 'name', 'givenName') });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value')).toEqual({
      path: path('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value', 'manager', 'value', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'),
    });
  });

  it('reads members[value eq "…"] (Entra removing one member)', () => {
    expect(parsePatchPath('members[value eq "2819c223-7f76-453a-919d-413861904646"]')).toEqual({
      path: path('members'),
      filter: { op: 'eq', path: path('value'), value: '2819c223-7f76-453a-919d-413861904646' },
    });
  });

  it('reads emails[type eq "work"].value (Entra adding a work e-mail)', () => {
    expect(parsePatchPath('emails[type eq "work"].value')).toEqual({
      path: path('emails'),
      filter: { op: 'eq', path: path('type'), value: 'work' },
      subAttribute: 'value',
    });
  });

  it.each([
    ['', 'expected an attribute path, found the end of the text'],
    ['emails[type eq "work"', 'expected "]", found the end of the text'],
    ['members[value eq "x"] extra', 'unexpected "extra" at character 23'],
    ['emails[type eq "work"] .value', 'unexpected ".value" at character 24'],
    ['emails.', '"emails." at character 1 is not an attribute path'],
  ])('refuses %j: 400 invalidPath', (text, reason) => {
    expect(() => parsePatchPath(text)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidPath', detail: `The path does not parse: ${reason}.` }));
  });
});
