import type { AuditContext, AuditStatements } from '../../common/audit/audit-event';
import { sqlChanges } from '../../common/audit/audit-event';
import { caselessKey } from '../../common/text/caseless-key';
import { columns } from '../../database/columns';
import { RowLock } from '../../database/locks';
import { Prisma, type Department } from '../../generated/prisma/client';
import { DirectoryAudit } from './directory.audit';

/** A tree is at most this many levels deep; a top-level department is level 1 (CONTRACT.md section 11). */
export const MAX_DEPARTMENT_LEVEL = 32;

/** Characters a path spends per level: a uuid and "/". */
export const PATH_CHARS_PER_LEVEL = 37;

/** What a PATCH asks of a department; a field left out keeps its value. `parentId` present: a move. */
export interface DepartmentChange {
  name?: string;
  externalId?: string | null;
  order?: number;
  parentId?: string | null;
}

/** The revision a PATCH requires, as SQL sees it: none, one, or never (If-None-Match: *). */
export type RevisionGuard = { kind: 'none' } | { kind: 'revision'; revision: bigint } | { kind: 'never' };

/**
 * The department row (the current one or the one written) and why the statement wrote or did not:
 * no row at all means there is no such department.
 */
export interface DepartmentUpdateOutcome {
  storedRevision: bigint;
  revisionOk: boolean;
  cycle: boolean;
  parentFound: boolean;
  tooDeep: boolean;
  isChange: boolean;
  written: boolean;
}

const OUTCOME = Prisma.raw(
  'r.stored_revision AS "storedRevision", r.revision_ok AS "revisionOk", r.cycle, r.parent_found AS "parentFound", r.too_deep AS "tooDeep", r.is_change AS "isChange", r.written',
);
const RESULT = columns<Department>('r')('id', 'externalId', 'name', 'order', 'parentId', 'revision', 'createdAt', 'updatedAt');
const RESULT_COLUMNS = ['id', 'external_id', 'name', 'order', 'parent_id', 'revision', 'created_at', 'updated_at'];

/**
 * The PATCH of a department as one statement; with `parentId` in the change, a move, which the
 * caller runs in a transaction after taking the tree lock (DepartmentsRepository.lockTreeForMove).
 *
 * `target` locks the department's row first and reads its newest version (READ COMMITTED: after
 * a wait, the one the other writer committed), so the checks, the old values of the audit event
 * and the write all see the version being replaced. A move then bumps the new parent's order
 * counter (the organization's for the top level), which locks that row; measures the moved
 * subtree's depth from its path range; and rewrites every path of the subtree in the one UPDATE
 * (rows ∝ subtree size, statements constant). `verdict` says whether the change may be written;
 * the UPDATE writes only when it may and something differs; the audit CTE writes one event from
 * the department's own row. The final row carries the verdict and the department, as written or
 * as it is.
 */
export function departmentUpdateStatement(
  organizationId: string,
  departmentId: string,
  change: DepartmentChange,
  guard: RevisionGuard,
  context: AuditContext,
  audit: AuditStatements,
): Prisma.Sql {
  const org = Prisma.sql`${organizationId}::uuid`;
  const move = change.parentId !== undefined;
  const parent = Prisma.sql`${change.parentId ?? null}::uuid`;

  const newParent =
    change.parentId === null
      ? Prisma.sql`UPDATE organizations o SET last_top_level_order = o.last_top_level_order + 1
          FROM target t WHERE o.id = ${org} AND t.parent_id IS NOT NULL
          RETURNING (''::text COLLATE "C") AS path, o.last_top_level_order AS next_order`
      : Prisma.sql`UPDATE departments p SET last_child_order = p.last_child_order + 1
          FROM target t
          WHERE p.organization_id = ${org} AND p.id = ${parent} AND p.id <> t.id AND p.id IS DISTINCT FROM t.parent_id
          RETURNING p.path, p.last_child_order AS next_order`;

  const revisionOk =
    guard.kind === 'none' ? Prisma.sql`true` : guard.kind === 'never' ? Prisma.sql`false` : Prisma.sql`t.revision = ${guard.revision}::bigint`;

  const differs: Prisma.Sql[] = [];
  if (change.name !== undefined) differs.push(Prisma.sql`t.name IS DISTINCT FROM ${change.name}::text`);
  if (change.externalId !== undefined) differs.push(Prisma.sql`t.external_id IS DISTINCT FROM ${change.externalId}::text`);
  if (change.order !== undefined) differs.push(Prisma.sql`t."order" IS DISTINCT FROM ${change.order}::bigint`);
  if (move) differs.push(Prisma.sql`moving`);

  const own = (column: string, value: Prisma.Sql) => Prisma.sql`${Prisma.raw(column)} = CASE WHEN d.id = v.id THEN ${value} ELSE d.${Prisma.raw(column)} END`;
  const sets: Prisma.Sql[] = [];
  if (change.name !== undefined) {
    sets.push(own('name', Prisma.sql`${change.name}::text`), own('name_key', Prisma.sql`${caselessKey(change.name)}::text`));
  }
  if (change.externalId !== undefined) sets.push(own('external_id', Prisma.sql`${change.externalId}::text`));
  if (move) {
    sets.push(own('parent_id', parent), Prisma.sql`path = v.new_path || substr(d.path, length(v.path) + 1)`);
  }
  // An explicit order wins; a moved department without one is its new parent's next child.
  if (change.order !== undefined) sets.push(own('"order"', Prisma.sql`${change.order}::bigint`));
  else if (move) sets.push(own('"order"', Prisma.sql`CASE WHEN v.moving THEN v.next_order ELSE d."order" END`));
  sets.push(own('revision', Prisma.sql`d.revision + 1`), own('updated_at', Prisma.sql`${context.at}::timestamptz`));

  const moveCtes = move
    ? Prisma.sql`
      new_parent AS (${newParent}),
      subtree AS (
        SELECT max(length(d.path)) AS deepest FROM departments d, target t
        WHERE d.organization_id = ${org} AND d.path >= t.path AND d.path < t.path || '~'),
      facts AS (
        SELECT t.*, ${parent} IS DISTINCT FROM t.parent_id AS moving, np.path AS parent_path, np.next_order, s.deepest
        FROM target t CROSS JOIN subtree s LEFT JOIN new_parent np ON true),`
    : Prisma.sql`
      facts AS (SELECT t.*, false AS moving, NULL::text AS parent_path, NULL::bigint AS next_order, NULL::integer AS deepest FROM target t),`;

  // The new parent is the department itself or below it: its path starts with the department's.
  const cycle = move ? Prisma.sql`coalesce(moving AND (${parent} = t.id OR starts_with(t.parent_path, t.path)), false)` : Prisma.sql`false`;
  const parentFound = move ? Prisma.sql`(NOT moving OR t.parent_path IS NOT NULL)` : Prisma.sql`true`;
  // The deepest level of the moved subtree once under its new parent.
  const tooDeep = move
    ? Prisma.sql`moving AND t.parent_path IS NOT NULL
        AND (length(t.parent_path) + t.deepest - length(t.path)) / ${PATH_CHARS_PER_LEVEL} + 1 > ${MAX_DEPARTMENT_LEVEL}`
    : Prisma.sql`false`;
  const newPath = move ? Prisma.sql`CASE WHEN moving THEN t.parent_path || t.id::text || '/' ELSE t.path END` : Prisma.sql`t.path`;
  // Only a move touches the rows below the department.
  const rows = move ? Prisma.sql`(v.moving OR d.id = v.id)` : Prisma.sql`d.id = v.id`;

  return Prisma.sql`
    WITH target AS (
      SELECT id, parent_id, name, external_id, "order", revision, created_at, updated_at, path
      FROM departments WHERE organization_id = ${org} AND id = ${departmentId}::uuid ${RowLock.forUpdate}),
    ${moveCtes}
    verdict AS (
      SELECT t.*, ${newPath} AS new_path, ${revisionOk} AS revision_ok,
        ${cycle} AS cycle, ${parentFound} AS parent_found, ${tooDeep} AS too_deep,
        ${differs.length > 0 ? Prisma.join(differs, ' OR ') : Prisma.sql`false`} AS is_change
      FROM facts t),
    changed AS (
      UPDATE departments d SET ${Prisma.join(sets)}
      FROM verdict v
      WHERE d.organization_id = ${org} AND d.path >= v.path AND d.path < v.path || '~' AND ${rows}
        AND v.revision_ok AND NOT v.cycle AND v.parent_found AND NOT v.too_deep AND v.is_change
      RETURNING d.id, d.external_id, d.name, d."order", d.parent_id, d.revision, d.created_at, d.updated_at),
    own_row AS (SELECT c.* FROM changed c JOIN verdict v ON c.id = v.id),
    ${audit.insertFrom(context, Prisma.sql`own_row c JOIN verdict v ON c.id = v.id`, {
      organizationId,
      action: DirectoryAudit.DepartmentUpdated,
      resourceId: Prisma.sql`c.id::text`,
      revisionBefore: Prisma.sql`v.revision`,
      revisionAfter: Prisma.sql`c.revision`,
      changes: sqlChanges(
        {
          name: { old: Prisma.sql`v.name`, new: Prisma.sql`c.name` },
          external_id: { old: Prisma.sql`v.external_id`, new: Prisma.sql`c.external_id` },
          parent_id: { old: Prisma.sql`v.parent_id`, new: Prisma.sql`c.parent_id` },
          order: { old: Prisma.sql`v."order"`, new: Prisma.sql`c."order"` },
        },
        { onlyChanged: true },
      ),
    })}
    SELECT ${RESULT.sql}, ${OUTCOME} FROM (
      SELECT ${Prisma.raw(RESULT_COLUMNS.map((column) => `CASE WHEN c.id IS NULL THEN v."${column}" ELSE c."${column}" END AS "${column}"`).join(', '))},
        v.revision AS stored_revision, v.revision_ok, v.cycle, v.parent_found, v.too_deep, v.is_change, c.id IS NOT NULL AS written
      FROM verdict v LEFT JOIN own_row c ON true) r`;
}
