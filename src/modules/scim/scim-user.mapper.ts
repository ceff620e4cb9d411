import type { UserRow } from '../users/users.repository';
import { SCIM_BASE_PATH } from './scim-http';
import { SCIM_SCHEMA } from './protocol/schemas';
import { isScimObject, type ScimObject } from './scim-user-attributes';
import { mappedEmailIndex } from './scim-user-values';
import { scimVersion } from './scim-version';

/** The address of a user as a SCIM resource: its Location and meta.location. */
export const scimUserLocation = (baseUrl: string, id: string) => `${baseUrl}${SCIM_BASE_PATH}/Users/${id}`;

/**
 * A user as a SCIM User resource: the columns under their SCIM names, the attributes a SCIM client
 * wrote as it wrote them, the user's departments as its (readOnly) groups, and meta. A user
 * created or changed through the REST API reads the same way: its email is the mapped entry of
 * `emails` (a `work` entry marked primary when no written entry holds it).
 */
export function toScimUser(row: UserRow, baseUrl: string): ScimObject {
  const { name: keptName, emails: keptEmails, [SCIM_SCHEMA.enterpriseUser]: enterprise, ...kept } = row.scimAttributes as ScimObject;
  const name = withoutNulls({ ...(isScimObject(keptName) ? keptName : {}), givenName: row.givenName, familyName: row.familyName });
  const emails = emailsOf(row.email, Array.isArray(keptEmails) ? (keptEmails as ScimObject[]) : []);
  return withoutNulls({
    schemas: isScimObject(enterprise) ? [SCIM_SCHEMA.user, SCIM_SCHEMA.enterpriseUser] : [SCIM_SCHEMA.user],
    id: row.id,
    externalId: row.externalId,
    userName: row.userName,
    name: Object.keys(name).length > 0 ? name : null,
    displayName: row.displayName,
    ...kept,
    emails: emails.length > 0 ? emails : null,
    active: row.active,
    groups: row.departmentIds.length > 0 ? row.departmentIds.map((id) => ({ value: id, type: 'direct' })) : null,
    ...(isScimObject(enterprise) ? { [SCIM_SCHEMA.enterpriseUser]: enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: scimUserLocation(baseUrl, row.id),
      version: scimVersion(row.revision),
    },
  });
}

/** The written entries with the email column in the mapped one (dropped when the column is null), or a primary `work` entry of its own. */
function emailsOf(email: string | null, kept: readonly ScimObject[]): ScimObject[] {
  const mapped = mappedEmailIndex(kept);
  if (mapped === -1) return email === null ? [...kept] : [...kept, { value: email, type: 'work', primary: true }];
  return kept.flatMap((entry, index) => (index !== mapped ? [entry] : email === null ? [] : [{ value: email, ...entry }]));
}

function withoutNulls(object: ScimObject): ScimObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined));
}
