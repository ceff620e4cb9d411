import { selectAttributes } from './attribute-selection';
import { GROUP_RESOURCE_TYPE, USER_RESOURCE_TYPE } from './schemas';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ID = '2819c223-7f76-453a-919d-413861904646';

const USER = {
  schemas: [CORE, ENTERPRISE],
  id: ID,
  externalId: '701984',
  userName: 'bjensen@example.com',
  name: { formatted: 'Ms. Barbara J Jensen, III', familyName: 'Jensen', givenName: 'Barbara' },
  displayName: 'Babs Jensen',
  active: true,
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  [ENTERPRISE]: { employeeNumber: '701984', manager: { value: '26118915-6090-4610-87e4-49d8ca9f808d', displayName: 'John Smith' } },
  meta: { resourceType: 'User', created: '2010-01-23T04:56:22Z', lastModified: '2011-05-13T04:42:34Z', version: 'W/"3"', location: `https://example.com/scim/v2/Users/${ID}` },
};

const select = (selection: { attributes?: string; excludedAttributes?: string }) => selectAttributes(USER, selection, USER_RESOURCE_TYPE);

describe('selectAttributes', () => {
  it('returns the whole resource when neither parameter is sent, or both are empty', () => {
    expect(select({})).toEqual(USER);
    expect(select({ attributes: '', excludedAttributes: ' , ' })).toEqual(USER);
  });

  describe('attributes', () => {
    it('returns those listed, with id and schemas, which are always returned', () => {
      expect(select({ attributes: 'userName' })).toEqual({ schemas: USER.schemas, id: ID, userName: 'bjensen@example.com' });
    });

    it('reads names in any case, with spaces around the commas, and sub-attributes', () => {
      expect(select({ attributes: 'USERNAME , name.GivenName' })).toEqual({ schemas: USER.schemas, id: ID, userName: 'bjensen@example.com', name: { givenName: 'Barbara' } });
    });

    it('reads a core attribute qualified by the core schema URN', () => {
      expect(select({ attributes: `${CORE}:displayName,${CORE}:name.familyName` })).toEqual({
        schemas: USER.schemas,
        id: ID,
        displayName: 'Babs Jensen',
        name: { familyName: 'Jensen' },
      });
    });

    it('projects each element of a multi-valued attribute on a sub-attribute', () => {
      expect(select({ attributes: 'emails.value' })).toEqual({ schemas: USER.schemas, id: ID, emails: [{ value: 'bjensen@example.com' }, { value: 'babs@jensen.org' }] });
    });

    it('returns a whole attribute when it and one of its sub-attributes are both listed', () => {
      expect(select({ attributes: 'name.givenName,name' })).toMatchObject({ name: USER.name });
      expect(select({ attributes: 'name,name.givenName' })).toMatchObject({ name: USER.name });
    });

    it('reads extension attributes under their URN, and the URN alone as the whole extension', () => {
      expect(select({ attributes: `${ENTERPRISE}:employeeNumber` })).toEqual({ schemas: USER.schemas, id: ID, [ENTERPRISE]: { employeeNumber: '701984' } });
      expect(select({ attributes: `${ENTERPRISE}:manager.displayName` })).toEqual({ schemas: USER.schemas, id: ID, [ENTERPRISE]: { manager: { displayName: 'John Smith' } } });
      expect(select({ attributes: ENTERPRISE.toUpperCase() })).toEqual({ schemas: USER.schemas, id: ID, [ENTERPRISE]: USER[ENTERPRISE] });
    });

    it('returns meta only when listed (its "returned" is default)', () => {
      expect(select({ attributes: 'userName' })).not.toHaveProperty('meta');
      expect(select({ attributes: 'meta.version' })).toEqual({ schemas: USER.schemas, id: ID, meta: { version: 'W/"3"' } });
    });

    it('ignores names the resource type does not advertise', () => {
      expect(select({ attributes: 'userName,password,nickName.x,urn:example:User:foo,employeeNumber,not a name' })).toEqual({
        schemas: USER.schemas,
        id: ID,
        userName: 'bjensen@example.com',
      });
      expect(select({ attributes: 'doesNotExist' })).toEqual({ schemas: USER.schemas, id: ID });
    });

    it('leaves out an attribute whose listed sub-attributes the resource lacks', () => {
      expect(select({ attributes: 'name.middleName,emails.display' })).toEqual({ schemas: USER.schemas, id: ID });
    });

    it('wins over excludedAttributes when both are sent', () => {
      expect(select({ attributes: 'userName', excludedAttributes: 'userName' })).toEqual({ schemas: USER.schemas, id: ID, userName: 'bjensen@example.com' });
    });
  });

  describe('excludedAttributes', () => {
    it('returns all but those listed', () => {
      const { emails: _emails, displayName: _displayName, ...rest } = USER;
      expect(select({ excludedAttributes: 'emails,DisplayName' })).toEqual(rest);
    });

    it('leaves out a sub-attribute, of each element of a multi-valued attribute too', () => {
      const result = select({ excludedAttributes: 'name.familyName,emails.value' });
      expect(result.name).toEqual({ formatted: 'Ms. Barbara J Jensen, III', givenName: 'Barbara' });
      expect(result.emails).toEqual([{ type: 'work', primary: true }, { type: 'home' }]);
    });

    it('leaves out a whole extension by its URN, or one of its attributes', () => {
      expect(select({ excludedAttributes: ENTERPRISE })).not.toHaveProperty([ENTERPRISE]);
      expect(select({ excludedAttributes: `${ENTERPRISE}:manager` })[ENTERPRISE]).toEqual({ employeeNumber: '701984' });
    });

    it('never leaves out id or schemas', () => {
      expect(select({ excludedAttributes: 'id,schemas,meta' })).toEqual(expect.objectContaining({ id: ID, schemas: USER.schemas }));
      expect(select({ excludedAttributes: 'id,schemas,meta' })).not.toHaveProperty('meta');
    });

    it('ignores names the resource type does not advertise', () => {
      expect(select({ excludedAttributes: 'password,members' })).toEqual(USER);
    });
  });

  it('never returns an attribute in no advertised schema, such as a password, at any level', () => {
    const withSecrets = { ...USER, password: 't1meMa$heen', name: { ...USER.name, secret: 'x' }, [ENTERPRISE]: { ...USER[ENTERPRISE], pin: '1234' } };
    for (const selection of [{}, { attributes: 'password,name,name.secret' }, { excludedAttributes: 'userName' }, { attributes: ENTERPRISE }]) {
      const result = selectAttributes(withSecrets, selection, USER_RESOURCE_TYPE);
      expect(result).not.toHaveProperty('password');
      expect(JSON.stringify(result)).not.toMatch(/secret|pin/);
    }
  });

  it('projects a Group by its own schemas: members.value, and our extension', () => {
    const extension = 'urn:ietf:params:scim:schemas:extension:workspace:2.0:Group';
    const group = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group', extension],
      id: 'e9e30dba-f08f-4109-8486-d5c6a331660a',
      displayName: 'Tour Guides',
      members: [{ value: ID, $ref: `https://example.com/scim/v2/Users/${ID}`, type: 'User', display: 'Babs Jensen' }],
      [extension]: { parentId: 'fc348aa8-3835-40eb-a20b-c726e15c55b5' },
    };
    expect(selectAttributes(group, { attributes: 'members.value,members.$ref' }, GROUP_RESOURCE_TYPE)).toEqual({
      schemas: group.schemas,
      id: group.id,
      members: [{ value: ID, $ref: `https://example.com/scim/v2/Users/${ID}` }],
    });
    expect(selectAttributes(group, { excludedAttributes: 'members' }, GROUP_RESOURCE_TYPE)).toEqual({
      schemas: group.schemas,
      id: group.id,
      displayName: 'Tour Guides',
      [extension]: group[extension],
    });
    // A User's attribute means nothing to a Group.
    expect(selectAttributes(group, { attributes: 'userName' }, GROUP_RESOURCE_TYPE)).toEqual({ schemas: group.schemas, id: group.id });
  });

  it('leaves the resource it was given unchanged', () => {
    const before = JSON.stringify(USER);
    select({ excludedAttributes: 'name.familyName,emails.value' });
    select({ attributes: 'emails.value' });
    expect(JSON.stringify(USER)).toBe(before);
  });
});
