import { codePointLength, isBlank } from '../../common/validation/field-rules';
import type { ColumnChanges, UserRewrite } from '../users/users.service';
import type { ScimAttributes, UserRow } from '../users/users.repository';
import { scimBoolean } from './protocol/patch-ops';
import { badScimRequest } from './protocol/scim-error';
import { invalidValue, isScimObject, type ScimObject } from './scim-user-attributes';

/** The directory's limits (CONTRACT.md section 11), in code points. */
const MAX_NAME = 255;
const MAX_EMAIL = 254;
const MAX_EXTERNAL_ID = 512;

/** The values of a User resource: a UserRewrite whose types say what each column takes. */
export interface ScimUserValues extends UserRewrite {
  fields: {
    user_name: string;
    external_id: string | null;
    display_name: string | null;
    given_name: string | null;
    family_name: string | null;
    email: string | null;
    active: boolean;
  };
}

/**
 * Which entry of `emails` is the user's email column (CONTRACT.md section 12): the primary one,
 * else the first of type `work`; -1 when none is.
 */
export function mappedEmailIndex(emails: readonly ScimObject[]): number {
  const primary = emails.findIndex((email) => email.primary === true);
  return primary !== -1 ? primary : emails.findIndex((email) => typeof email.type === 'string' && email.type.toLowerCase() === 'work');
}

/**
 * The directory's values of a canonical User resource (canonicalUser): the columns it maps to, by
 * the rules of the REST API (userName trimmed and in NFC, not blank; the limits; externalId exact),
 * and every other attribute kept as written in scim_attributes. The mapped email entry is kept
 * without its value, which the email column holds, so that a change of the email through the REST
 * API reads back in the entry it came from. `active` left out is true for a new user and unchanged
 * for an existing one (a PUT that does not say).
 */
export function scimUserValues(user: ScimObject, current?: UserRow): ScimUserValues {
  const { userName, externalId, displayName, active, name, emails, ...others } = user;
  const kept: ScimAttributes = { ...others };
  const { givenName, familyName, ...otherNames } = isScimObject(name) ? name : {};
  if (Object.keys(otherNames).length > 0) kept.name = otherNames;

  let email: string | null = null;
  if (Array.isArray(emails) && emails.length > 0) {
    const entries = emails as ScimObject[];
    const mapped = mappedEmailIndex(entries);
    if (mapped !== -1) email = optionalText(entries[mapped].value, 'emails.value', MAX_EMAIL);
    kept.emails = entries.map((entry, index) => (index === mapped ? withoutValue(entry) : entry));
  }

  return {
    fields: {
      user_name: COLUMN_ATTRIBUTES.userName.read(userName),
      external_id: COLUMN_ATTRIBUTES.externalId.read(externalId),
      display_name: COLUMN_ATTRIBUTES.displayName.read(displayName),
      given_name: COLUMN_ATTRIBUTES['name.givenName'].read(givenName),
      family_name: COLUMN_ATTRIBUTES['name.familyName'].read(familyName),
      email,
      active: typeof active === 'boolean' ? active : (current?.active ?? true),
    },
    scimAttributes: kept,
  };
}

/** An attribute that is a column of its own; its reader answers what the column takes, or 400 invalidValue. */
type ColumnAttribute = { [F in keyof ColumnChanges]-?: { field: F; read: (value: unknown) => NonNullable<ColumnChanges[F]> | Extract<ColumnChanges[F], null> } }[keyof ColumnChanges];

/**
 * The single-valued attributes that are a column of their own, by canonical path: the column and
 * how a value of it is read (the REST API's rules). `active` takes "True"/"False" too, as
 * canonicalUser reads it.
 */
const COLUMN_ATTRIBUTES = {
  userName: { field: 'user_name', read: requiredUserName },
  externalId: { field: 'external_id', read: externalIdOf },
  displayName: { field: 'display_name', read: (value: unknown) => optionalText(value, 'displayName', MAX_NAME) },
  'name.givenName': { field: 'given_name', read: (value: unknown) => optionalText(value, 'name.givenName', MAX_NAME) },
  'name.familyName': { field: 'family_name', read: (value: unknown) => optionalText(value, 'name.familyName', MAX_NAME) },
  active: { field: 'active', read: (value: unknown) => scimBoolean(value, 'active') },
} as const satisfies Record<string, ColumnAttribute>;

/** The column attribute at a canonical path (`displayName`, `name.givenName`); undefined for any other attribute. */
export function columnAttribute(canonicalPath: string): ColumnAttribute | undefined {
  return Object.hasOwn(COLUMN_ATTRIBUTES, canonicalPath) ? COLUMN_ATTRIBUTES[canonicalPath as keyof typeof COLUMN_ATTRIBUTES] : undefined;
}

function withoutValue(entry: ScimObject): ScimObject {
  const { value: _value, ...rest } = entry;
  return rest;
}

function requiredUserName(value: unknown): string {
  if (value === undefined) throw badScimRequest('invalidValue', 'userName: required; a User has a userName.');
  if (typeof value !== 'string') throw invalidValue('userName', 'must be a string');
  const userName = value.trim().normalize('NFC');
  if (isBlank(userName)) throw invalidValue('userName', 'must not be blank');
  if (codePointLength(userName) > MAX_NAME) throw invalidValue('userName', `must be at most ${MAX_NAME} characters`);
  return userName;
}

function externalIdOf(value: unknown): string | null {
  const externalId = optionalText(value, 'externalId', MAX_EXTERNAL_ID);
  if (externalId === null) return null;
  // Matched exactly, as the REST API's external_id: a stray space would make it another identifier.
  if (isBlank(externalId)) throw invalidValue('externalId', 'must not be blank');
  if (externalId.trim() !== externalId) throw invalidValue('externalId', 'must not start or end with white space');
  return externalId;
}

function optionalText(value: unknown, path: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidValue(path, 'must be a string');
  if (codePointLength(value) > max) throw invalidValue(path, `must be at most ${max} characters`);
  return value;
}
