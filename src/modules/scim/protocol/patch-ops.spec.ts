import { readPatchOperations, scimBoolean } from './patch-ops';

const SCHEMAS = ['urn:ietf:params:scim:api:messages:2.0:PatchOp'];


describe('readPatchOperations', () => {
  it('reads Entra\'s capitalised ops and its filtered path', () => {
    expect(
      readPatchOperations({
        schemas: SCHEMAS,
        Operations: [
          { op: 'Replace', path: 'active', value: 'False' },
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'bjensen@example.com' },
        ],
      }),
    ).toEqual([
      { op: 'replace', path: 'active', target: { path: { name: 'active', text: 'active' } }, value: 'False' },
      {
        op: 'add',
        path: 'emails[type eq "work"].value',
        target: { path: { name: 'emails', text: 'emails' }, filter: { op: 'eq', path: { name: 'type', text: 'type' }, value: 'work' }, subAttribute: 'value' },
        value: 'bjensen@example.com',
      },
    ]);
  });

  it('reads Okta\'s path-less replace with an object of attributes', () => {
    expect(readPatchOperations({ schemas: SCHEMAS, Operations: [{ op: 'replace', value: { active: false } }] })).toEqual([{ op: 'replace', value: { active: false } }]);
  });

  it('reads a remove of one member by a filtered path, and of members listed in value', () => {
    const [byFilter, byValue] = readPatchOperations({
      schemas: SCHEMAS,
      Operations: [
        { op: 'remove', path: 'members[value eq "2819c223-7f76-453a-919d-413861904646"]' },
        { op: 'Remove', path: 'members', value: [{ value: '2819c223-7f76-453a-919d-413861904646' }] },
      ],
    });
    expect(byFilter).toEqual({
      op: 'remove',
      path: 'members[value eq "2819c223-7f76-453a-919d-413861904646"]',
      target: { path: { name: 'members', text: 'members' }, filter: { op: 'eq', path: { name: 'value', text: 'value' }, value: '2819c223-7f76-453a-919d-413861904646' } },
    });
    expect(byValue).toMatchObject({ op: 'remove', path: 'members', value: [{ value: '2819c223-7f76-453a-919d-413861904646' }] });
  });

  it('matches member names and the schema URN in any case', () => {
    expect(readPatchOperations({ SCHEMAS: [SCHEMAS[0].toUpperCase()], operations: [{ OP: 'ADD', Path: 'title', VALUE: 'x' }] })).toEqual([
      { op: 'add', path: 'title', target: { path: { name: 'title', text: 'title' } }, value: 'x' },
    ]);
  });

  it.each([
    ['a body that is no object', [], 'invalidSyntax', 'The body must be a PatchOp message (a JSON object).'],
    ['no schemas', { Operations: [{ op: 'add', value: {} }] }, 'invalidSyntax', 'schemas must list urn:ietf:params:scim:api:messages:2.0:PatchOp.'],
    ['another message\'s schema', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], Operations: [] }, 'invalidSyntax', 'schemas must list urn:ietf:params:scim:api:messages:2.0:PatchOp.'],
    ['no operations', { schemas: SCHEMAS }, 'invalidSyntax', 'Operations must be a non-empty array.'],
    ['empty operations', { schemas: SCHEMAS, Operations: [] }, 'invalidSyntax', 'Operations must be a non-empty array.'],
    ['an operation that is no object', { schemas: SCHEMAS, Operations: ['add'] }, 'invalidSyntax', 'Operations[0] must be an object.'],
    ['an unknown op', { schemas: SCHEMAS, Operations: [{ op: 'move', path: 'title' }] }, 'invalidSyntax', 'Operations[0].op must be add, replace or remove.'],
    ['a missing op', { schemas: SCHEMAS, Operations: [{ path: 'title', value: 'x' }] }, 'invalidSyntax', 'Operations[0].op must be add, replace or remove.'],
    ['a remove without a path', { schemas: SCHEMAS, Operations: [{ op: 'remove' }] }, 'noTarget', 'Operations[0] removes without a path: name what to remove.'],
    ['an add without a value', { schemas: SCHEMAS, Operations: [{ op: 'add', path: 'title' }] }, 'invalidSyntax', 'Operations[0].value is required for add.'],
    ['a path-less replace of a string', { schemas: SCHEMAS, Operations: [{ op: 'replace', value: 'x' }] }, 'invalidSyntax', 'Operations[0].value must be an object of attributes when there is no path.'],
    ['a path that is no string', { schemas: SCHEMAS, Operations: [{ op: 'replace', path: 3, value: 'x' }] }, 'invalidPath', 'Operations[0].path must be a string.'],
    ['a path that does not parse', { schemas: SCHEMAS, Operations: [{ op: 'replace', path: 'emails[type eq', value: 'x' }] }, 'invalidPath', expect.stringMatching(/^The path does not parse: /)],
    ['a name sent twice', { schemas: SCHEMAS, Operations: [{ op: 'add', Op: 'remove', path: 'title', value: 'x' }] }, 'invalidSyntax', 'Operations[0] has op and Op: send op once.'],
  ])('refuses %s', (_case, body, scimType, detail) => {
    expect(() => readPatchOperations(body)).toThrow(expect.objectContaining({ status: 400, scimType, detail }));
  });
});

describe('scimBoolean', () => {
  it.each([
    [true, true],
    [false, false],
    ['True', true],
    ['False', false],
    ['TRUE', true],
    ['false', false],
  ])('reads %j as %j', (value, expected) => {
    expect(scimBoolean(value, 'active')).toBe(expected);
  });

  it.each(['yes', '1', '', 1, null, undefined, {}])('refuses %j: 400 invalidValue', (value) => {
    expect(() => scimBoolean(value, 'active')).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidValue', detail: expect.stringMatching(/^active must be true or false, not /) }));
  });
});
