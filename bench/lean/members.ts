import type { Pool, PoolClient } from 'pg';
import { auditCtes, auditParameters, changed, type Actor } from './audit';
import { HttpError } from './http';
import { COLUMNS, toJson, type UserRow } from './users';

// After the user's row lock, as the service does: the membership, the user's revision and its
// primary when it had none, the `department.member_added` event (the primary listed when it
// changed) with its outbox rows, the user read back with its departments. No row: no such
// department, or a member already (then the user as it is).
const ADD_MEMBER = `
  WITH inserted AS (
    INSERT INTO department_members (organization_id, department_id, user_id)
    SELECT $1, d.id, $3 FROM departments d WHERE d.organization_id = $1 AND d.id = $2
    ON CONFLICT DO NOTHING RETURNING department_id, user_id),
  changed AS (
    UPDATE users SET revision = users.revision + 1, updated_at = $5::timestamptz,
      primary_department_id = COALESCE(users.primary_department_id, inserted.department_id)
    FROM inserted WHERE users.organization_id = $1 AND users.id = inserted.user_id
    RETURNING users.*),
  ${auditCtes({
    from: 'changed, inserted',
    firstParameter: 4,
    organizationId: 'changed.organization_id',
    action: 'department.member_added',
    resourceId: 'inserted.department_id::text',
    revisionBefore: 'NULL::bigint',
    revisionAfter: 'NULL::bigint',
    // The primary changed only when the user had none: then it is this department.
    changes: `${changed('user_id', 'NULL', 'changed.id')}
      || CASE WHEN changed.primary_department_id = inserted.department_id THEN ${changed('primary_department_id', 'NULL', 'changed.primary_department_id')} ELSE '{}'::jsonb END`,
  })}
  SELECT ${COLUMNS}, ARRAY(SELECT m.department_id FROM department_members m WHERE m.organization_id = $1 AND m.user_id = $3 ORDER BY m.seq) || $2::uuid AS department_ids
  FROM changed`;

// The membership out; the earliest-added remaining one becomes primary when it was the primary;
// the `department.member_removed` event (the primary listed when it changed) with its outbox rows.
const REMOVE_MEMBER = `
  WITH removed AS (
    DELETE FROM department_members WHERE organization_id = $1 AND department_id = $2 AND user_id = $3
    RETURNING organization_id, department_id, user_id),
  earliest AS (
    SELECT m.department_id FROM department_members m
    WHERE m.organization_id = $1 AND m.user_id = $3 AND m.department_id <> $2 ORDER BY m.seq LIMIT 1),
  changed AS (
    UPDATE users SET revision = users.revision + 1, updated_at = $5::timestamptz,
      primary_department_id = CASE WHEN users.primary_department_id = removed.department_id
        THEN (SELECT department_id FROM earliest) ELSE users.primary_department_id END
    FROM removed WHERE users.organization_id = $1 AND users.id = removed.user_id
    RETURNING users.id, users.primary_department_id),
  ${auditCtes({
    from: 'changed, removed',
    firstParameter: 4,
    organizationId: 'removed.organization_id',
    action: 'department.member_removed',
    resourceId: 'removed.department_id::text',
    revisionBefore: 'NULL::bigint',
    revisionAfter: 'NULL::bigint',
    // $8: the removed department was the primary (read under the user's row lock), which then moved on.
    changes: `${changed('user_id', 'changed.id', 'NULL')}
      || CASE WHEN $8::boolean THEN ${changed('primary_department_id', 'removed.department_id', 'changed.primary_department_id')} ELSE '{}'::jsonb END`,
  })}
  SELECT id FROM changed`;

const LOCK_USER = 'SELECT primary_department_id FROM users WHERE organization_id = $1 AND id = $2 FOR UPDATE';

// A member already: the user as it is (200), as the service answers a repeated PUT.
const READ_USER = `
  SELECT ${COLUMNS}, ARRAY(SELECT m.department_id FROM department_members m WHERE m.organization_id = $1 AND m.user_id = $2 ORDER BY m.seq) AS department_ids
  FROM users WHERE organization_id = $1 AND id = $2`;

/** PUT and DELETE departments/{id}/members/{user_id}, what the benchmark's member scenario sends. */
export class Members {
  constructor(private readonly pool: Pool) {}

  /** 201 with the user when added, 200 with it when a member already. */
  add(organizationId: string, actor: Actor, departmentId: string, userId: string): Promise<{ status: 200 | 201; body: string }> {
    return this.underUserLock(organizationId, userId, async (client) => {
      const values = [organizationId, departmentId, userId, ...auditParameters(actor).values];
      const { rows } = await client.query<UserRow>({ name: 'add-member', text: ADD_MEMBER, values });
      if (rows.length > 0) return { status: 201, body: toJson(rows[0]) };
      const [user] = (await client.query<UserRow>({ name: 'read-member-user', text: READ_USER, values: [organizationId, userId] })).rows;
      if (!user.department_ids.includes(departmentId)) throw new HttpError(404, 'NOT_FOUND', 'No such department.');
      return { status: 200, body: toJson(user) };
    });
  }

  remove(organizationId: string, actor: Actor, departmentId: string, userId: string): Promise<void> {
    return this.underUserLock(organizationId, userId, async (client, primaryDepartmentId) => {
      const values = [organizationId, departmentId, userId, ...auditParameters(actor).values, primaryDepartmentId === departmentId];
      const { rowCount } = await client.query({ name: 'remove-member', text: REMOVE_MEMBER, values });
      if (rowCount === 0) throw new HttpError(404, 'NOT_FOUND', 'The user is not a member of the department.');
    });
  }

  /** `work` in a transaction that first locks the user's row, given the user's primary department as the lock read it. */
  private async underUserLock<T>(organizationId: string, userId: string, work: (client: PoolClient, primaryDepartmentId: string | null) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const [locked] = (await client.query<{ primary_department_id: string | null }>({ name: 'lock-user', text: LOCK_USER, values: [organizationId, userId] })).rows;
      if (locked === undefined) throw new HttpError(404, 'NOT_FOUND', 'No such user.');
      const result = await work(client, locked.primary_department_id);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }
}
