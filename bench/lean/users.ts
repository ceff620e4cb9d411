import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { Principal } from './api-keys';
import { auditCtes, auditParameters, changed, type Actor } from './audit';
import { idempotentCreate, type CreateOutcome } from './departments';
import { HttpError, invalid } from './http';
import { refuseUnknownFields, text, uuid } from './input';

export interface UserRow {
  id: string;
  user_name: string;
  display_name: string | null;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  external_id: string | null;
  active: boolean;
  department_ids: string[];
  primary_department_id: string | null;
  revision: string;
  created_at: Date;
  updated_at: Date;
}

export const COLUMNS = 'id, user_name, display_name, given_name, family_name, email, external_id, active, primary_department_id, revision, created_at, updated_at';

// The user and its memberships in one statement, with its `user.created` event ($5: its changes,
// all known before the statement) and outbox rows; no row when a department is not the organization's.
const INSERT_USER = `
  WITH wanted AS (
    SELECT d.id, w.ord FROM unnest($4::uuid[]) WITH ORDINALITY AS w(id, ord)
    JOIN departments d ON d.organization_id = $2 AND d.id = w.id),
  changed AS (
    INSERT INTO users (id, organization_id, user_name, user_name_key, primary_department_id, created_at, updated_at)
    SELECT $1::uuid, $2::uuid, $3::varchar, caseless_key($3), ($4::uuid[])[1], $7::timestamptz, $7::timestamptz
    WHERE (SELECT count(*) FROM wanted) = cardinality($4::uuid[])
    RETURNING ${COLUMNS}),
  members AS (
    INSERT INTO department_members (organization_id, department_id, user_id)
    SELECT $2, wanted.id, changed.id FROM changed, wanted ORDER BY wanted.ord),
  ${auditCtes({
    from: 'changed',
    firstParameter: 6,
    organizationId: '$2::uuid',
    action: 'user.created',
    resourceId: 'changed.id::text',
    revisionBefore: 'NULL::bigint',
    revisionAfter: 'changed.revision',
    changes: '$5::jsonb',
  })}
  SELECT changed.*, $4::uuid[] AS department_ids FROM changed`;

// The compare-and-set of one field on the revision the statement's snapshot read, with the
// `user.updated` event (its old value from that read) and outbox rows, and the memberships read
// back. No row: no such user, nothing to change, or another writer changed the user after the
// snapshot (this statement waited for its row lock, then found another revision).
const UPDATE_DISPLAY_NAME = `
  WITH old AS (
    SELECT display_name AS old_display_name, revision AS old_revision FROM users WHERE id = $1 AND organization_id = $2),
  updated AS (
    UPDATE users AS s SET display_name = $3, revision = s.revision + 1, updated_at = $5::timestamptz
    FROM old WHERE s.id = $1 AND s.organization_id = $2 AND s.revision = old.old_revision AND old.old_display_name IS DISTINCT FROM $3
    RETURNING ${COLUMNS}, organization_id),
  ${auditCtes({
    from: 'updated, old',
    firstParameter: 4,
    organizationId: 'updated.organization_id',
    action: 'user.updated',
    resourceId: 'updated.id::text',
    revisionBefore: 'old.old_revision',
    revisionAfter: 'updated.revision',
    changes: changed('display_name', 'old.old_display_name', 'updated.display_name'),
  })}
  SELECT updated.*, ARRAY(SELECT m.department_id FROM department_members m WHERE m.organization_id = updated.organization_id AND m.user_id = updated.id ORDER BY m.seq) AS department_ids
  FROM updated`;

const READ_DISPLAY_NAME = 'SELECT display_name FROM users WHERE id = $1 AND organization_id = $2';

const ERROR_BY_CONSTRAINT: Record<string, () => HttpError> = {
  users_organization_id_user_name_key_key: () => new HttpError(409, 'USER_NAME_CONFLICT', 'Another user of the organization already has this user_name.'),
  department_members_organization_id_department_id_fkey: () => departmentNotFound(),
};

const departmentNotFound = () =>
  new HttpError(422, 'DEPARTMENT_NOT_FOUND', 'department_ids names a department that does not exist in this organization.', { field: 'department_ids', reason: 'not_found' });

/** POST users (user_name and department_ids, what the benchmark sends) and PATCH users/{id} (display_name). */
export class Users {
  constructor(private readonly pool: Pool) {}

  create(principal: Principal, actor: Actor, keyHeader: string | string[] | undefined, path: string, body: Record<string, unknown>): Promise<CreateOutcome> {
    refuseUnknownFields(body, ['user_name', 'department_ids']);
    if (body.user_name === undefined) throw invalid('user_name', 'required', 'user_name: required.');
    const userName = text(body.user_name, 'user_name', 255, true).normalize('NFC');
    const departmentIds = body.department_ids === undefined ? [] : uuids(body.department_ids);
    const insert = async (client: PoolClient) => {
      const values = [randomUUID(), principal.organizationId, userName, departmentIds, createdChanges(userName, departmentIds), ...auditParameters(actor).values];
      const { rows } = await client.query<UserRow>({ name: 'insert-user', text: INSERT_USER, values });
      if (rows.length === 0) throw departmentNotFound();
      return toJson(rows[0]);
    };
    return idempotentCreate(this.pool, principal, keyHeader, path, body, insert, ERROR_BY_CONSTRAINT);
  }

  async update(organizationId: string, actor: Actor, userId: string, body: Record<string, unknown>): Promise<string> {
    refuseUnknownFields(body, ['display_name']);
    const displayName = body.display_name === undefined ? undefined : text(body.display_name, 'display_name', 255, false);
    for (;;) {
      const values = [userId, organizationId, displayName, ...auditParameters(actor).values];
      const { rows } = await this.pool.query<UserRow>({ name: 'update-user-display-name', text: UPDATE_DISPLAY_NAME, values });
      if (rows.length === 1) return toJson(rows[0]);
      const [stored] = (await this.pool.query<{ display_name: string | null }>({ name: 'read-user-display-name', text: READ_DISPLAY_NAME, values: [userId, organizationId] })).rows;
      if (stored === undefined || stored.display_name === (displayName ?? null)) throw new HttpError(404, 'NOT_FOUND', 'No such user, or nothing to change.');
      // Another writer changed the user after this statement's snapshot: again, on a newer one.
    }
  }
}

/** The `changes` of a new user as the service records them: every wire field, old null. */
function createdChanges(userName: string, departmentIds: string[]): string {
  const created = (value: unknown) => ({ old: null, new: value });
  return JSON.stringify({
    user_name: created(userName),
    display_name: created(null),
    given_name: created(null),
    family_name: created(null),
    email: created(null),
    external_id: created(null),
    active: created(true),
    department_ids: created(departmentIds),
    primary_department_id: created(departmentIds[0] ?? null),
  });
}

function uuids(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid('department_ids', 'invalid_type', 'department_ids: must be a list.');
  const ids = value.map((item) => uuid(item, 'department_ids'));
  if (new Set(ids).size !== ids.length) throw invalid('department_ids', 'duplicate', 'department_ids: duplicate.');
  return ids;
}

export function toJson(row: UserRow): string {
  return JSON.stringify({
    user_id: row.id,
    user_name: row.user_name,
    display_name: row.display_name,
    given_name: row.given_name,
    family_name: row.family_name,
    email: row.email,
    external_id: row.external_id,
    active: row.active,
    department_ids: row.department_ids,
    primary_department_id: row.primary_department_id,
    revision: Number(row.revision),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  });
}
