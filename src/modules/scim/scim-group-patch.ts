import type { ScimFilter } from './protocol/filter-parser';
import { readPatchOperations, type PatchOperation } from './protocol/patch-ops';
import { badScimRequest } from './protocol/scim-error';
import { SCIM_SCHEMA } from './protocol/schemas';
import { externalIdOf, groupName, invalidValue, memberIdsOf, parentIdIn, parentIdOf, type ScimObject } from './scim-group-values';

/**
 * What a PATCH does to a group's members, folded from its operations in order: a delta (users to
 * add, users to remove) or a whole new set (after a `replace` of members or a `remove` of all of
 * them, with the later adds and removes applied to it).
 */
export type MemberPlan = { kind: 'delta'; add: Set<string>; remove: Set<string> } | { kind: 'set'; ids: Set<string> };

/** What a PATCH of a group changes: a department field left out keeps its value. */
export interface GroupPatchPlan {
  name?: string;
  externalId?: string | null;
  /** Present: a move (null: to the top level). */
  parentId?: string | null;
  members: MemberPlan;
}

/** The attributes a Group has, lower-cased as a path names them; what else a path names is 400 invalidPath. */
const CORE = SCIM_SCHEMA.group.toLowerCase();
const EXTENSION = SCIM_SCHEMA.workspaceGroup.toLowerCase();
const READ_ONLY = new Set(['id', 'meta', 'schemas']);

/**
 * The plan of a PatchOp body on a Group (RFC 7644 §3.5.2): op names in any case (Entra's `Add`,
 * `Replace`, `Remove`); `add` of members adds, `remove` with path `members` and a value removes
 * those (Entra), without a value removes all, with path `members[value eq "…"]` removes that one
 * (Okta); `replace` of members replaces the set; a path-less `add`/`replace` takes an object of
 * attributes (Okta's `{"id": …, "displayName": …}`, its id ignored). Adding a member that already
 * is one, or removing one that is not, changes nothing and is no error.
 */
export function groupPatchPlan(body: unknown): GroupPatchPlan {
  const plan: GroupPatchPlan = { members: { kind: 'delta', add: new Set(), remove: new Set() } };
  for (const operation of readPatchOperations(body)) apply(plan, operation);
  return plan;
}

function apply(plan: GroupPatchPlan, operation: PatchOperation): void {
  if (operation.target === undefined) {
    // readPatchOperations lets a path-less operation through only with an object value, and never a remove.
    for (const [key, value] of Object.entries(operation.value as ScimObject)) {
      const lower = key.toLowerCase();
      // The resource's own id, schemas or meta in the value (Okta sends the id): nothing to change.
      if (READ_ONLY.has(lower)) continue;
      applyAttribute(plan, operation.op, lower, value, key);
    }
    return;
  }
  const { path, filter, subAttribute } = operation.target;
  const name = attributeKey(path.uri, path.name);
  const text = operation.path ?? path.text;
  if (name === 'members' && filter !== undefined) {
    if (subAttribute !== undefined || path.subAttribute !== undefined) throw badScimRequest('invalidPath', `${text}: a member is changed whole; name members[value eq "…"].`);
    if (operation.op !== 'remove') throw badScimRequest('invalidPath', `${text}: a filtered members path only removes; add and replace take path "members".`);
    memberRemove(plan.members, memberIdsOfFilter(filter, text));
    return;
  }
  if (filter !== undefined || subAttribute !== undefined) throw badScimRequest('invalidPath', `${text}: only members takes a value filter.`);
  const key = path.subAttribute === undefined ? name : `${name}.${path.subAttribute.toLowerCase()}`;
  applyAttribute(plan, operation.op, key, operation.value, text);
}

/** The attribute a path names, lower-case: a core attribute unqualified, the extension's parentId as `<urn>:parentid`, the extension itself as its URN. */
function attributeKey(uri: string | undefined, name: string): string {
  const lowerUri = uri?.toLowerCase();
  const lowerName = name.toLowerCase();
  if (lowerUri === undefined || lowerUri === CORE) return lowerName;
  // `urn:…:workspace:2.0:Group` parses as the URI `urn:…:2.0` and the name `Group`.
  if (`${lowerUri}:${lowerName}` === EXTENSION) return EXTENSION;
  return `${lowerUri}:${lowerName}`;
}

function applyAttribute(plan: GroupPatchPlan, op: PatchOperation['op'], key: string, value: unknown, text: string): void {
  switch (key) {
    case 'displayname':
      if (op === 'remove') throw badScimRequest('invalidValue', `${text}: displayName is required and cannot be removed.`);
      plan.name = groupName(value);
      return;
    case 'externalid':
      plan.externalId = op === 'remove' ? null : externalIdOf(value);
      return;
    case 'members':
      if (op === 'replace') plan.members = { kind: 'set', ids: new Set(value === null ? [] : memberIdsOf(value, text)) };
      else if (op === 'add') memberAdd(plan.members, value === null ? [] : memberIdsOf(value, text));
      else if (value === undefined || value === null) plan.members = { kind: 'set', ids: new Set() };
      else memberRemove(plan.members, memberIdsOf(value, text));
      return;
    case `${EXTENSION}:parentid`:
      plan.parentId = op === 'remove' ? null : parentIdOf(value);
      return;
    case EXTENSION: {
      if (op === 'remove') {
        plan.parentId = null;
        return;
      }
      const parentId = parentIdIn(value);
      if (parentId !== undefined) plan.parentId = parentId;
      return;
    }
    default:
      if (key.startsWith('members.')) throw badScimRequest('invalidPath', `${text}: a member is changed whole, by path "members".`);
      if (READ_ONLY.has(key.split('.')[0])) throw badScimRequest('mutability', `${text}: is read-only.`);
      throw badScimRequest('invalidPath', `${text}: a Group has displayName, externalId, members and ${SCIM_SCHEMA.workspaceGroup}:parentId.`);
  }
}

function memberAdd(plan: MemberPlan, ids: readonly string[]): void {
  for (const id of ids) {
    if (plan.kind === 'set') plan.ids.add(id);
    else {
      plan.remove.delete(id);
      plan.add.add(id);
    }
  }
}

function memberRemove(plan: MemberPlan, ids: readonly string[]): void {
  for (const id of ids) {
    if (plan.kind === 'set') plan.ids.delete(id);
    else {
      plan.add.delete(id);
      plan.remove.add(id);
    }
  }
}

/** The user ids of `members[value eq "…"]`, or of several such comparisons joined by `or`; any other filter is 400 invalidPath. */
function memberIdsOfFilter(filter: ScimFilter, text: string): string[] {
  if (filter.op === 'or') return filter.filters.flatMap((part) => memberIdsOfFilter(part, text));
  if (filter.op === 'eq' && filter.path.uri === undefined && filter.path.subAttribute === undefined && filter.path.name.toLowerCase() === 'value') {
    if (typeof filter.value !== 'string') throw invalidValue(text, 'compare value with a user id in double quotes');
    // A value that is no uuid is the id of no member: nothing to remove.
    return memberIdsOrNone(filter.value);
  }
  throw badScimRequest('invalidPath', `${text}: members are removed by members[value eq "<user id>"].`);
}

function memberIdsOrNone(value: string): string[] {
  try {
    return memberIdsOf({ value }, 'members');
  } catch {
    return [];
  }
}
