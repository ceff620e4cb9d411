import { codePointLength, isBlank } from '../../common/validation/field-rules';
import { lowerCaseUuid } from '../../common/validation/string-rules';
import { badScimRequest } from './protocol/scim-error';
import { SCIM_SCHEMA } from './protocol/schemas';

/** The departments' limits (CONTRACT.md section 3, section 11), in code points. */
const MAX_NAME = 255;
const MAX_EXTERNAL_ID = 512;

export type ScimObject = Record<string, unknown>;

export const isScimObject = (value: unknown): value is ScimObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A Group resource as a POST or PUT sends it, in the directory's terms. */
export interface GroupValues {
  name: string;
  externalId: string | null;
  /** Direct members' user ids, distinct, lower-case; absent members is none (PUT replaces the set). */
  memberIds: string[];
  /** Only when the body names the workspace extension's parentId (null: top level); absent: a new group is top-level, a replaced one stays where it is. */
  parentId?: string | null;
}

/** The member `name` of a resource in any letter case (RFC 7643 §2.1: attribute names are case-insensitive); two spellings are ambiguous. */
export function attributeOf(object: ScimObject, name: string, owner = 'The Group'): unknown {
  const keys = Object.keys(object).filter((key) => key.toLowerCase() === name.toLowerCase());
  if (keys.length > 1) throw badScimRequest('invalidSyntax', `${owner} has ${keys.join(' and ')}: send ${name} once.`);
  return keys.length === 0 ? undefined : object[keys[0]];
}

/**
 * The values of a Group body (POST, PUT): displayName required, the rules of a department's name
 * and external_id (trimmed and NFC, not blank; the external id exact), members by user id.
 * Read-only attributes (id, meta, members' display) and attributes of no advertised schema are ignored.
 */
export function readGroup(body: unknown): GroupValues {
  if (!isScimObject(body)) throw badScimRequest('invalidSyntax', 'The body must be a Group resource (a JSON object).');
  const displayName = attributeOf(body, 'displayName');
  if (displayName === undefined || displayName === null) throw badScimRequest('invalidValue', 'displayName: required; a Group has a displayName.');
  const members = attributeOf(body, 'members');
  const extension = attributeOf(body, SCIM_SCHEMA.workspaceGroup);
  const parentId = extension === undefined || extension === null ? undefined : parentIdIn(extension);
  return {
    name: groupName(displayName),
    externalId: externalIdOf(attributeOf(body, 'externalId')),
    memberIds: members === undefined || members === null ? [] : memberIdsOf(members, 'members'),
    ...(parentId === undefined ? {} : { parentId }),
  };
}

/** The parentId of the workspace extension's object; undefined when it does not name one. */
export function parentIdIn(extension: unknown): string | null | undefined {
  if (!isScimObject(extension)) throw invalidValue(SCIM_SCHEMA.workspaceGroup, 'must be an object');
  const parentId = attributeOf(extension, 'parentId', SCIM_SCHEMA.workspaceGroup);
  return parentId === undefined ? undefined : parentIdOf(parentId);
}

export function parentIdOf(value: unknown): string | null {
  if (value === null) return null;
  const id = lowerCaseUuid(value);
  if (id === undefined) throw invalidValue('parentId', 'must be the id of a Group of the organization, or null for the top level');
  return id;
}

export function groupName(value: unknown): string {
  if (typeof value !== 'string') throw invalidValue('displayName', 'must be a string');
  const name = value.trim().normalize('NFC');
  if (isBlank(name)) throw invalidValue('displayName', 'must not be blank');
  if (codePointLength(name) > MAX_NAME) throw invalidValue('displayName', `must be at most ${MAX_NAME} characters`);
  return name;
}

export function externalIdOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidValue('externalId', 'must be a string');
  if (codePointLength(value) > MAX_EXTERNAL_ID) throw invalidValue('externalId', `must be at most ${MAX_EXTERNAL_ID} characters`);
  // Matched exactly, as the REST API's external_id: a stray space would make it another identifier.
  if (isBlank(value)) throw invalidValue('externalId', 'must not be blank');
  if (value.trim() !== value) throw invalidValue('externalId', 'must not start or end with white space');
  return value;
}

/**
 * The user ids of a `members` value: an array of {value} (Entra adds `"$ref": null`, Okta
 * `display`), or one such object; distinct, lower-case. A value that is no uuid names no user of
 * the organization: 400 invalidValue, as an unknown user is. A member of another type than User
 * (a nested group) is not supported: 400 invalidValue.
 */
export function memberIdsOf(value: unknown, path: string): string[] {
  const entries = Array.isArray(value) ? value : [value];
  const ids = entries.map((entry, index) => {
    const at = Array.isArray(value) ? `${path}[${index}]` : path;
    if (!isScimObject(entry)) throw invalidValue(at, 'must be an object with the member\'s value (a user id)');
    const type = attributeOf(entry, 'type', at);
    if (type !== undefined && type !== null && (typeof type !== 'string' || type.toLowerCase() !== 'user')) {
      throw invalidValue(`${at}.type`, 'must be User: a Group\'s members are users (groups are departments, nested by parentId)');
    }
    const id = lowerCaseUuid(attributeOf(entry, 'value', at));
    if (id === undefined) throw invalidValue(`${at}.value`, 'must be the id of a User of the organization');
    return id;
  });
  return [...new Set(ids)];
}

export const invalidValue = (path: string, rule: string) => badScimRequest('invalidValue', `${path}: ${rule}.`);
