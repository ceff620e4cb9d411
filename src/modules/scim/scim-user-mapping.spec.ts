import type { UserRow } from '../users/users.repository';
import { ScimError } from './protocol/scim-error';
import { canonicalUser } from './scim-user-attributes';
import { columnPatch, patchedUser } from './scim-user-patch';
import { toScimUser } from './scim-user.mapper';
import { scimUserValues } from './scim-user-values';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The row UsersService would store for `resource`, at revision 1. */
function stored(resource: object, current?: UserRow): UserRow {
  const { fields, scimAttributes } = scimUserValues(canonicalUser(resource), current);
  return {
    id: '0190a8d2-0000-7000-8000-000000000001',
    userName: fields.user_name,
    displayName: fields.display_name,
    givenName: fields.given_name,
    familyName: fields.family_name,
    email: fields.email,
    externalId: fields.external_id,
    active: fields.active,
    scimAttributes: scimAttributes as UserRow['scimAttributes'],
    primaryDepartmentId: null,
    revision: 1n,
    seq: 1n,
    createdAt: new Date('2026-12-01T00:00:00Z'),
    updatedAt: new Date('2026-12-01T00:00:00Z'),
    departmentIds: [],
  };
}

const scimTypeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof ScimError ? `${error.status} ${error.scimType}` : String(error);
  }
  return 'no error';
};

describe('SCIM User ↔ directory user', () => {
  it('maps the shared attributes to the columns and keeps the rest as written, the mapped email entry without its value', () => {
    const { fields, scimAttributes } = scimUserValues(
      canonicalUser({
        schemas: [USER],
        USERNAME: '  Zoe\u0301 ',
        name: { givenName: 'Zoé', formatted: 'Zoé L' },
        emails: [{ value: 'home@example.com', type: 'home' }, { value: 'zoe@example.com', type: 'Work' }],
        active: 'False',
        title: 'Dr',
        password: 'never kept',
        shoeSize: 42,
        [ENTERPRISE]: { department: 'R&D' },
      }),
    );
    expect(fields).toEqual({ user_name: 'Zoé', external_id: null, display_name: null, given_name: 'Zoé', family_name: null, email: 'zoe@example.com', active: false });
    expect(scimAttributes).toEqual({
      name: { formatted: 'Zoé L' },
      emails: [{ value: 'home@example.com', type: 'home' }, { type: 'Work' }],
      title: 'Dr',
      [ENTERPRISE]: { department: 'R&D' },
    });
  });

  it('takes the primary entry before the work one, and reads a written user back as written', () => {
    const resource = {
      schemas: [USER, ENTERPRISE],
      userName: 'ann',
      emails: [{ value: 'work@example.com', type: 'work' }, { value: 'main@example.com', type: 'other', primary: true }],
      [ENTERPRISE]: { manager: { value: 'm-1' } },
    };
    const row = stored(resource);
    expect(row.email).toBe('main@example.com');
    const { meta, id, active, ...read } = toScimUser(row, 'https://api.example.com');
    expect({ ...read, id, active, meta }).toEqual({
      ...resource,
      id: row.id,
      active: true,
      meta: { resourceType: 'User', created: '2026-12-01T00:00:00.000Z', lastModified: '2026-12-01T00:00:00.000Z', location: `https://api.example.com/scim/v2/Users/${row.id}`, version: 'W/"1"' },
    });
  });

  it('keeps active as it is when a replacement leaves it out', () => {
    const inactive = stored({ userName: 'ann', active: false });
    expect(scimUserValues(canonicalUser({ userName: 'ann' }), inactive).fields.active).toBe(false);
    expect(scimUserValues(canonicalUser({ userName: 'ann' })).fields.active).toBe(true);
  });

  it('refuses values of the wrong type or length with invalidValue, and a body that is no object with invalidSyntax', () => {
    expect(scimTypeOf(() => canonicalUser(['userName']))).toBe('400 invalidSyntax');
    expect(scimTypeOf(() => scimUserValues(canonicalUser({ displayName: 'no userName' })))).toBe('400 invalidValue');
    expect(scimTypeOf(() => scimUserValues(canonicalUser({ userName: 'a', displayName: 'x'.repeat(256) })))).toBe('400 invalidValue');
    expect(scimTypeOf(() => scimUserValues(canonicalUser({ userName: 'a', emails: [{ value: 7, primary: true }] })))).toBe('400 invalidValue');
    expect(scimTypeOf(() => canonicalUser({ userName: 'a', phoneNumbers: { value: '1' } }))).toBe('400 invalidValue');
    expect(scimTypeOf(() => canonicalUser({ userName: 'a', [ENTERPRISE]: 'Sales' }))).toBe('400 invalidValue');
  });
});

describe('patchedUser', () => {
  const user = toScimUser(stored({ userName: 'ann', emails: [{ value: 'a@example.com', type: 'work', primary: true }], name: { givenName: 'Ann' } }), '');
  const patch = (...operations: object[]) => patchedUser(user, { schemas: [PATCH_OP], Operations: operations });

  it('applies Entra\'s capitalised ops on value-filtered and dotted paths, in any letter case of the names', () => {
    const patched = patch({ op: 'Replace', path: 'EMAILS[type eq "work"].VALUE', value: 'b@example.com' }, { op: 'Add', path: 'Name.FamilyName', value: 'Lee' });
    expect({ emails: patched.emails, name: patched.name }).toEqual({ emails: [{ value: 'b@example.com', type: 'work', primary: true }], name: { givenName: 'Ann', familyName: 'Lee' } });
  });

  it('splits a path-less value into one operation per attribute: plain, dotted and extension keys', () => {
    const patched = patch({ op: 'replace', value: { active: false, 'name.givenName': 'Anna', [ENTERPRISE]: { department: 'Sales' }, unknownThing: 1 } });
    expect({ active: patched.active, name: patched.name, enterprise: patched[ENTERPRISE], unknown: patched.unknownThing }).toEqual({
      active: false,
      name: { givenName: 'Anna' },
      enterprise: { department: 'Sales' },
      unknown: undefined,
    });
  });

  it('refuses readOnly targets with mutability and paths that do not parse with invalidPath', () => {
    expect(scimTypeOf(() => patch({ op: 'replace', path: 'groups', value: [] }))).toBe('400 mutability');
    expect(scimTypeOf(() => patch({ op: 'replace', path: 'meta.created', value: 'x' }))).toBe('400 mutability');
    expect(scimTypeOf(() => patch({ op: 'replace', path: 'emails[type eq "work"', value: 'x' }))).toBe('400 invalidPath');
  });
});

describe('columnPatch', () => {
  const columns = (...operations: object[]) => columnPatch({ schemas: [PATCH_OP], Operations: operations });

  it('sets the columns of plain attributes as the providers send them: Entra\'s Replace and "False", Okta\'s path-less value, qualified names in any case', () => {
    expect(columns({ op: 'Replace', path: 'active', value: 'False' }, { op: 'Add', path: 'displayName', value: 'Ann Lee' })).toEqual({ active: false, display_name: 'Ann Lee' });
    expect(columns({ op: 'replace', value: { active: false } })).toEqual({ active: false });
    expect(columns({ op: 'replace', path: `${USER}:NAME.givenname`, value: 'Ann' }, { op: 'replace', path: 'userName', value: ' ann ' })).toEqual({ given_name: 'Ann', user_name: 'ann' });
    expect(columns({ op: 'replace', path: 'externalId', value: 'e-1' }, { op: 'replace', path: 'externalId', value: 'e-2' })).toEqual({ external_id: 'e-2' });
  });

  it('leaves every other request to patchedUser: removes, nulls, value filters, complex, multi-valued, extension and unknown attributes', () => {
    const others = [
      [{ op: 'remove', path: 'displayName' }],
      [{ op: 'replace', path: 'displayName', value: null }],
      [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'b@example.com' }],
      [{ op: 'replace', path: 'name', value: { givenName: 'Ann' } }],
      [{ op: 'add', path: 'emails', value: [{ value: 'b@example.com' }] }],
      [{ op: 'replace', path: `${ENTERPRISE}:department`, value: 'Sales' }],
      [{ op: 'replace', path: 'title', value: 'Manager' }],
      [{ op: 'replace', path: 'name.formatted', value: 'Ann Lee' }],
      [{ op: 'replace', path: 'nickname.x', value: 'y' }],
      [{ op: 'replace', path: 'displayName', value: 'Ann' }, { op: 'replace', path: 'title', value: 'Manager' }],
    ];
    expect(others.map((operations) => columns(...operations))).toEqual(others.map(() => undefined));
  });

  it('refuses what patchedUser refuses, with the same scimType', () => {
    const user = toScimUser(stored({ userName: 'ann' }), '');
    const bodies = [
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 5 }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'yes' }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: '  ' }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'x'.repeat(256) }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName[', value: 'x' }] },
      { schemas: [PATCH_OP], Operations: [] },
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }, { op: 'replace', path: 'id', value: 'x' }] },
    ];
    const refusals = bodies.map((body) => scimTypeOf(() => columnPatch(body)));
    expect(refusals).toEqual(bodies.map((body) => scimTypeOf(() => scimUserValues(canonicalUser(patchedUser(user, body))))));
    expect(refusals).toEqual(['400 invalidValue', '400 invalidValue', '400 invalidValue', '400 invalidValue', '400 invalidPath', '400 invalidSyntax', '400 mutability']);
  });
});
