import type { Pool } from 'pg';
import { auditCtes, auditParameters, changed, type Actor } from './audit';
import { HttpError } from './http';
import { refuseUnknownFields, uuid } from './input';

// The tree lock row first, alone (the service's design, docs/directory.md "Locking").
const LOCK_TREE = 'SELECT 1 FROM department_tree_locks WHERE organization_id = $1 FOR UPDATE';

// Then one statement: the department's row, the new parent's path and next order, the checks, the
// subtree's paths in one UPDATE over the path range, and the department's `department.updated`
// event with its outbox rows. $3 null: the top level.
const MOVE = `
  WITH target AS (
    SELECT id, parent_id, "order", revision, path FROM departments WHERE organization_id = $2 AND id = $1 FOR UPDATE),
  parent AS (
    SELECT CASE WHEN $3::uuid IS NULL THEN ''::text COLLATE "C" ELSE (SELECT path FROM departments WHERE organization_id = $2 AND id = $3::uuid) END AS path),
  next AS (
    SELECT coalesce(max("order"), 0) + 1 AS next_order FROM departments WHERE organization_id = $2 AND parent_id IS NOT DISTINCT FROM $3::uuid),
  subtree AS (
    SELECT max(length(d.path)) AS deepest FROM departments d, target t WHERE d.organization_id = $2 AND d.path >= t.path AND d.path < t.path || '~'),
  verdict AS (
    SELECT t.id, t.parent_id, t."order", t.revision, t.path, p.path AS parent_path, n.next_order,
      t.parent_id IS DISTINCT FROM $3::uuid AS moving,
      p.path IS NOT NULL AS parent_found,
      coalesce($3::uuid = t.id OR starts_with(p.path, t.path), false) AS cycle,
      (length(p.path) + s.deepest - length(t.path)) / 37 + 1 > 32 AS too_deep
    FROM target t, parent p, next n, subtree s),
  moved AS (
    UPDATE departments d SET
      path = v.parent_path || v.id::text || '/' || substr(d.path, length(v.path) + 1),
      parent_id = CASE WHEN d.id = v.id THEN $3::uuid ELSE d.parent_id END,
      "order" = CASE WHEN d.id = v.id THEN v.next_order ELSE d."order" END,
      revision = CASE WHEN d.id = v.id THEN d.revision + 1 ELSE d.revision END,
      updated_at = CASE WHEN d.id = v.id THEN $5::timestamptz ELSE d.updated_at END
    FROM verdict v
    WHERE d.organization_id = $2 AND d.path >= v.path AND d.path < v.path || '~'
      AND v.moving AND v.parent_found AND NOT v.cycle AND NOT v.too_deep
    RETURNING d.id, d.organization_id, d.parent_id, d."order", d.revision, d.updated_at),
  own_row AS (SELECT m.* FROM moved m JOIN verdict v ON m.id = v.id),
  ${auditCtes({
    from: 'own_row m JOIN verdict v ON true',
    firstParameter: 4,
    organizationId: 'm.organization_id',
    action: 'department.updated',
    resourceId: 'm.id::text',
    revisionBefore: 'v.revision',
    revisionAfter: 'm.revision',
    // A move always changes parent_id; the order only when the new parent's next one differs.
    changes: `${changed('parent_id', 'v.parent_id', 'm.parent_id')}
      || CASE WHEN v."order" IS DISTINCT FROM m."order" THEN ${changed('order', 'v."order"', 'm."order"')} ELSE '{}'::jsonb END`,
  })}
  SELECT v.moving, v.parent_found, v.cycle, v.too_deep, d.id AS department_id, d.external_id, d.name,
    coalesce(o."order", d."order")::float8 AS "order", CASE WHEN o.id IS NULL THEN d.parent_id ELSE o.parent_id END AS parent_id,
    coalesce(o.revision, d.revision)::float8 AS revision, d.created_at, coalesce(o.updated_at, d.updated_at) AS updated_at
  FROM verdict v JOIN departments d ON d.organization_id = $2 AND d.id = v.id LEFT JOIN own_row o ON true`;

interface MoveRow {
  moving: boolean;
  parent_found: boolean;
  cycle: boolean;
  too_deep: boolean;
  department_id: string;
  external_id: string | null;
  name: string;
  order: number;
  parent_id: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

/** PATCH departments/{id} for the one field the benchmark sends: parent_id (a move). */
export class DepartmentMoves {
  constructor(private readonly pool: Pool) {}

  async move(organizationId: string, actor: Actor, departmentId: string, body: Record<string, unknown>): Promise<string> {
    refuseUnknownFields(body, ['parent_id']);
    const parentId = body.parent_id == null ? null : uuid(body.parent_id, 'parent_id');
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query({ name: 'lock-tree', text: LOCK_TREE, values: [organizationId] });
      const { rows } = await client.query<MoveRow>({ name: 'move-department', text: MOVE, values: [departmentId, organizationId, parentId, ...auditParameters(actor).values] });
      await client.query('COMMIT');
      const row = rows[0];
      if (row === undefined) throw new HttpError(404, 'NOT_FOUND', `No department ${departmentId} exists in this organization.`);
      if (row.cycle) throw new HttpError(409, 'DEPARTMENT_CYCLE', 'parent_id is the department itself or one of its descendants.', { field: 'parent_id', reason: 'invalid_value' });
      if (!row.parent_found) throw new HttpError(422, 'PARENT_NOT_FOUND', 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' });
      if (row.too_deep) throw new HttpError(422, 'DEPARTMENT_TOO_DEEP', 'A department tree is at most 32 levels deep.', { field: 'parent_id', reason: 'invalid_value' });
      const { moving: _moving, parent_found: _found, cycle: _cycle, too_deep: _deep, ...department } = row;
      return JSON.stringify(department);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
