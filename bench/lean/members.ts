import type { Pool, PoolClient } from 'pg';
import { HttpError } from './http';
import { COLUMNS, toJson, type UserRow } from './users';

// After the user's row lock, as the service does: the membership, the user's revision and its
// primary when it had none, the user read back with its departments. No row: no such department,
// or a member already (then the user as it is).
const ADD_MEMBER = `
  WITH inserted AS (
    INSERT INTO department_members (organization_id, department_id, user_id)
    SELECT $1, d.id, $3 FROM departments d WHERE d.organization_id = $1 AND d.id = $2
    ON CONFLICT DO NOTHING RETURNING department_id, user_id),
  changed AS (
    UPDATE users SET revision = users.revision + 1, updated_at = now(),
      primary_department_id = COALESCE(users.primary_department_id, inserted.department_id)
    FROM inserted WHERE users.organization_id = $1 AND users.id = inserted.user_id
    RETURNING users.*)
  SELECT ${COLUMNS}, ARRAY(SELECT m.department_id FROM department_members m WHERE m.organization_id = $1 AND m.user_id = $3 ORDER BY m.seq) || $2::uuid AS department_ids
  FROM changed`;

// The membership out; the earliest-added remaining one becomes primary when it was the primary.
const REMOVE_MEMBER = `
  WITH removed AS (
    DELETE FROM department_members WHERE organization_id = $1 AND department_id = $2 AND user_id = $3
    RETURNING department_id, user_id),
  earliest AS (
    SELECT m.department_id FROM department_members m
    WHERE m.organization_id = $1 AND m.user_id = $3 AND m.department_id <> $2 ORDER BY m.seq LIMIT 1),
  changed AS (
    UPDATE users SET revision = users.revision + 1, updated_at = now(),
      primary_department_id = CASE WHEN users.primary_department_id = removed.department_id
        THEN (SELECT department_id FROM earliest) ELSE users.primary_department_id END
    FROM removed WHERE users.organization_id = $1 AND users.id = removed.user_id
    RETURNING users.id)
  SELECT id FROM changed`;

const LOCK_USER = 'SELECT id FROM users WHERE organization_id = $1 AND id = $2 FOR UPDATE';

// A member already: the user as it is (200), as the service answers a repeated PUT.
const READ_USER = `
  SELECT ${COLUMNS}, ARRAY(SELECT m.department_id FROM department_members m WHERE m.organization_id = $1 AND m.user_id = $2 ORDER BY m.seq) AS department_ids
  FROM users WHERE organization_id = $1 AND id = $2`;

/** PUT and DELETE departments/{id}/members/{user_id}, what the benchmark's member scenario sends. */
export class Members {
  constructor(private readonly pool: Pool) {}

  /** 201 with the user when added, 200 with it when a member already. */
  add(organizationId: string, departmentId: string, userId: string): Promise<{ status: 200 | 201; body: string }> {
    return this.underUserLock(organizationId, userId, async (client) => {
      const { rows } = await client.query<UserRow>({ name: 'add-member', text: ADD_MEMBER, values: [organizationId, departmentId, userId] });
      if (rows.length > 0) return { status: 201, body: toJson(rows[0]) };
      const [user] = (await client.query<UserRow>({ name: 'read-member-user', text: READ_USER, values: [organizationId, userId] })).rows;
      if (!user.department_ids.includes(departmentId)) throw new HttpError(404, 'NOT_FOUND', 'No such department.');
      return { status: 200, body: toJson(user) };
    });
  }

  remove(organizationId: string, departmentId: string, userId: string): Promise<void> {
    return this.underUserLock(organizationId, userId, async (client) => {
      const { rowCount } = await client.query({ name: 'remove-member', text: REMOVE_MEMBER, values: [organizationId, departmentId, userId] });
      if (rowCount === 0) throw new HttpError(404, 'NOT_FOUND', 'The user is not a member of the department.');
    });
  }

  private async underUserLock<T>(organizationId: string, userId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rowCount } = await client.query({ name: 'lock-user', text: LOCK_USER, values: [organizationId, userId] });
      if (rowCount === 0) throw new HttpError(404, 'NOT_FOUND', 'No such user.');
      const result = await work(client);
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
