import { codePointLength, isBlank } from '../../common/validation/field-rules';
import type { UserRewrite } from '../users/users.service';
import type { ScimAttributes, UserRow } from '../users/users.repository';
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
      user_name: requiredUserName(userName),
      external_id: externalIdOf(externalId),
      display_name: optionalText(displayName, 'displayName', MAX_NAME),
      given_name: optionalText(givenName, 'name.givenName', MAX_NAME),
      family_name: optionalText(familyName, 'name.familyName', MAX_NAME),
      email,
      active: typeof active === 'boolean' ? active : (current?.active ?? true),
    },
    scimAttributes: kept,
  };
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
