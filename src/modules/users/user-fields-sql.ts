import type { User } from '../../generated/prisma/client';
import type { UpdateUserDto } from './dto/update-user.dto';

/**
 * The user columns a PATCH writes directly, by their wire name (the body's and the audit event's),
 * with the SQL type each value is sent as. user_name also writes user_name_key (its caseless key).
 */
export const PATCHED_USER_COLUMNS = {
  user_name: { column: 'user_name', type: 'text' },
  display_name: { column: 'display_name', type: 'text' },
  given_name: { column: 'given_name', type: 'text' },
  family_name: { column: 'family_name', type: 'text' },
  email: { column: 'email', type: 'text' },
  external_id: { column: 'external_id', type: 'text' },
  active: { column: 'active', type: 'boolean' },
} as const satisfies Partial<Record<keyof UpdateUserDto, { column: string; type: 'text' | 'boolean' }>>;

export type PatchedUserField = keyof typeof PATCHED_USER_COLUMNS;

/** The model field of each patched wire field, for comparing a body with a stored row in code. */
export const PATCHED_USER_FIELDS = {
  user_name: 'userName',
  display_name: 'displayName',
  given_name: 'givenName',
  family_name: 'familyName',
  email: 'email',
  external_id: 'externalId',
  active: 'active',
} as const satisfies Record<PatchedUserField, keyof User>;
