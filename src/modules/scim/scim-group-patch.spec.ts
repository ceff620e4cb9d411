import { ScimError } from './protocol/scim-error';
import { groupPatchPlan } from './scim-group-patch';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const WORKSPACE = 'urn:ietf:params:scim:schemas:extension:workspace:2.0:Group';
const [A, B, C] = ['0f8fad5b-d9cb-469f-a165-70867728950e', '7c9e6679-7425-40de-944b-e07fc1f90ae7', '16fd2706-8baf-433b-82eb-8c7fada847da'];

const plan = (...Operations: object[]) => {
  const { members, ...fields } = groupPatchPlan({ schemas: [PATCH_OP], Operations });
  return { ...fields, members: members.kind === 'set' ? { set: [...members.ids] } : { add: [...members.add], remove: [...members.remove] } };
};

const refusal = (...Operations: object[]) => {
  try {
    groupPatchPlan({ schemas: [PATCH_OP], Operations });
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, scimType: error.scimType };
    throw error;
  }
  throw new Error('expected a ScimError');
};

describe('groupPatchPlan', () => {
  it("folds Entra's Add and Remove of members (value lists, $ref null) into one delta, a later op winning over an earlier one", () => {
    expect(
      plan(
        { op: 'Add', path: 'members', value: [{ $ref: null, value: A }, { $ref: null, value: B.toUpperCase() }] },
        { op: 'Remove', path: 'members', value: [{ $ref: null, value: A }] },
        { op: 'Remove', path: 'members', value: [{ value: C }] },
      ),
    ).toEqual({ members: { add: [B], remove: [A, C] } });
  });

  it("removes by members[value eq \"…\"] (Okta), or several joined by or; a value that is no uuid removes nothing", () => {
    expect(plan({ op: 'remove', path: `members[value eq "${A}"]` })).toEqual({ members: { add: [], remove: [A] } });
    expect(plan({ op: 'remove', path: `members[value eq "${A}" or value eq "${B}"]` })).toEqual({ members: { add: [], remove: [A, B] } });
    expect(plan({ op: 'remove', path: 'members[value eq "someone"]' })).toEqual({ members: { add: [], remove: [] } });
  });

  it('replace of members, or remove of all, makes a whole set that later adds and removes change', () => {
    expect(plan({ op: 'replace', path: 'members', value: [{ value: A }, { value: B }] }, { op: 'remove', path: `members[value eq "${A}"]` })).toEqual({ members: { set: [B] } });
    expect(plan({ op: 'remove', path: 'members' }, { op: 'add', path: 'members', value: [{ value: C }] })).toEqual({ members: { set: [C] } });
    expect(plan({ op: 'replace', value: { members: [] } })).toEqual({ members: { set: [] } });
  });

  it("takes displayName, externalId and parentId by path or from a path-less object, ignoring the resource's id (Okta's rename)", () => {
    expect(plan({ op: 'replace', value: { id: A, displayName: '  Sales ' } })).toEqual({ name: 'Sales', members: { add: [], remove: [] } });
    expect(plan({ op: 'Replace', path: 'externalId', value: 'x-1' }, { op: 'remove', path: 'externalId' })).toEqual({ externalId: null, members: { add: [], remove: [] } });
    expect(plan({ op: 'replace', path: `${WORKSPACE}:parentId`, value: A })).toEqual({ parentId: A, members: { add: [], remove: [] } });
    expect(plan({ op: 'replace', value: { [WORKSPACE]: { parentId: null } } })).toEqual({ parentId: null, members: { add: [], remove: [] } });
    expect(plan({ op: 'add', path: WORKSPACE, value: { parentId: B } })).toEqual({ parentId: B, members: { add: [], remove: [] } });
    expect(plan({ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:Group:displayName', value: 'Q' })).toEqual({ name: 'Q', members: { add: [], remove: [] } });
  });

  it('refuses what names no attribute of a Group, a read-only one, or a value of the wrong type', () => {
    expect(refusal({ op: 'replace', path: 'title', value: 'x' })).toEqual({ status: 400, scimType: 'invalidPath' });
    expect(refusal({ op: 'replace', path: 'members.value', value: A })).toEqual({ status: 400, scimType: 'invalidPath' });
    expect(refusal({ op: 'add', path: `members[value eq "${A}"]`, value: [{ value: A }] })).toEqual({ status: 400, scimType: 'invalidPath' });
    expect(refusal({ op: 'remove', path: 'members[type eq "User"]' })).toEqual({ status: 400, scimType: 'invalidPath' });
    expect(refusal({ op: 'replace', path: 'meta.created', value: 'x' })).toEqual({ status: 400, scimType: 'mutability' });
    expect(refusal({ op: 'replace', path: 'displayName', value: 1 })).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal({ op: 'remove', path: 'displayName' })).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal({ op: 'add', path: 'members', value: [{ value: 'bob' }] })).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal({ op: 'add', path: 'members', value: [{ value: A, type: 'Group' }] })).toEqual({ status: 400, scimType: 'invalidValue' });
    expect(refusal({ op: 'replace', path: `${WORKSPACE}:parentId`, value: 'top' })).toEqual({ status: 400, scimType: 'invalidValue' });
  });
});
