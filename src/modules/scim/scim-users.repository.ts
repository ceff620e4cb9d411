import { Prisma } from '../../generated/prisma/client';
import { filterAttributes, type FilterColumn } from './protocol/filter-sql';
import { SCIM_SCHEMA } from './protocol/schemas';

const text = (sql: string, options: Partial<FilterColumn> = {}): FilterColumn => ({ type: 'string', sql: Prisma.raw(sql), ...options });

/**
 * A user's `emails` as a filter sees them, one row each (email.value, .type, .primary, .display),
 * as scim-user.mapper.ts writes them: the entries kept in scim_attributes, the mapped one (kept
 * without its value) with the email column's value, and the column as a primary `work` entry of
 * its own when no kept entry is the mapped one (a user made through the REST API).
 */
const EMAILS = Prisma.raw(`(
  SELECT coalesce(kept.item->>'value', users.email) AS value, kept.item->>'type' AS type, (kept.item->>'primary')::boolean AS "primary", kept.item->>'display' AS display
  FROM jsonb_array_elements(coalesce(users.scim_attributes->'emails', '[]'::jsonb)) AS kept(item)
  UNION ALL
  SELECT users.email, 'work', true, NULL
  WHERE users.email IS NOT NULL AND NOT EXISTS (
    SELECT FROM jsonb_array_elements(coalesce(users.scim_attributes->'emails', '[]'::jsonb)) AS mapped(item) WHERE mapped.item->'value' IS NULL)
) AS email`);

/**
 * What a filter of /scim/v2/Users may name (CONTRACT.md section 12), as SQL over the table `users`
 * (UsersRepository.matchingPage, with its total, and countMatching run it). The lookups providers make are
 * indexed: `userName eq` on (organization_id, user_name_key), `externalId eq` on (organization_id,
 * external_id), `id eq` on the primary key.
 */
export const USER_FILTER_ATTRIBUTES = filterAttributes(SCIM_SCHEMA.user, {
  id: { type: 'uuid', sql: Prisma.raw('users.id') },
  externalId: text('users.external_id', { caseExact: true }),
  userName: text('users.user_name', { caselessKey: Prisma.raw('users.user_name_key') }),
  displayName: text('users.display_name'),
  active: { type: 'boolean', sql: Prisma.raw('users.active') },
  'name.givenName': text('users.given_name'),
  'name.familyName': text('users.family_name'),
  'meta.created': { type: 'dateTime', sql: Prisma.raw('users.created_at') },
  'meta.lastModified': { type: 'dateTime', sql: Prisma.raw('users.updated_at') },
  emails: {
    anyElement: (condition) => Prisma.sql`EXISTS (SELECT FROM ${EMAILS} WHERE email.value IS NOT NULL AND ${condition})`,
    subAttributes: {
      value: text('email.value'),
      type: text('email.type'),
      primary: { type: 'boolean', sql: Prisma.raw('email."primary"') },
      display: text('email.display'),
    },
  },
});
