import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../../common/audit/audit-event';
import { AuditStatements, sqlChanges } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import { caselessKey } from '../../common/text/caseless-key';
import { columns, type RowOf } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Department } from '../../generated/prisma/client';
import { DirectoryAudit } from './directory.audit';
import { DirectoryError } from './directory.errors';

export const DEPARTMENT = columns<Department>()('id', 'externalId', 'name', 'order', 'parentId', 'revision', 'createdAt', 'updatedAt');
export type DepartmentRow = RowOf<typeof DEPARTMENT>;

/** What a create wrote: the department, or why not (no parent, or past the depth limit). */
export type InsertOutcome = { kind: 'created'; row: DepartmentRow } | { kind: 'parent not found' } | { kind: 'too deep' };

/** What a department holds: child departments and member users. */
export interface DepartmentContents {
  children: number;
  members: number;
}

/** What a delete did: removed it, or found it not empty or at another revision (undefined: no such department). */
export interface DeleteOutcome {
  storedRevision: bigint;
  contents: DepartmentContents;
  deleted: boolean;
}

/** A keyset position in a parent's children: the last row of the page before. */
export interface ChildrenPosition {
  order: string;
  id: string;
}

// The database, not this code, enforces uniqueness; these are its answers.
const conflicts = violations({
  departments_sibling_name_key: () =>
    new AppError(DirectoryError.DEPARTMENT_NAME_CONFLICT, 'A department with this name (ignoring case and Unicode normalization form) already exists under the same parent.'),
  departments_organization_id_external_id_key: () =>
    new AppError(DirectoryError.EXTERNAL_ID_CONFLICT, 'Another department of the organization already has this external_id.'),
});

// A department row referenced by a child or a membership: one created while the delete waited.
const contentsAppeared = violations({
  departments_organization_id_parent_id_fkey: () => new ContentsAppeared(),
  department_members_organization_id_department_id_fkey: () => new ContentsAppeared(),
});

/** The delete met a child or member the statement's snapshot did not show (a foreign key refused it). */
export class ContentsAppeared extends Error {}

// A move whose new parent was deleted after the statement read it.
const parentVanished = violations({
  departments_organization_id_parent_id_fkey: () =>
    new AppError(DirectoryError.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' }),
});

const DEPARTMENT_OF_CHANGED = columns<Department>('changed')('id', 'externalId', 'name', 'order', 'parentId', 'revision', 'createdAt', 'updatedAt').sql;

const DELETED_DEPARTMENT_CHANGES = sqlChanges({
  name: { old: Prisma.sql`removed.name`, new: Prisma.raw('NULL::text') },
  external_id: { old: Prisma.sql`removed.external_id`, new: Prisma.raw('NULL::text') },
  parent_id: { old: Prisma.sql`removed.parent_id`, new: Prisma.raw('NULL::uuid') },
  order: { old: Prisma.sql`removed."order"`, new: Prisma.raw('NULL::bigint') },
});

const CREATED_DEPARTMENT_CHANGES = sqlChanges({
  name: { old: null, new: Prisma.sql`changed.name` },
  external_id: { old: null, new: Prisma.sql`changed.external_id` },
  parent_id: { old: null, new: Prisma.sql`changed.parent_id` },
  order: { old: null, new: Prisma.sql`changed."order"` },
});

/** The departments table: every statement of the directory module. */
@Injectable()
export class DepartmentsRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * One statement: takes the next sibling order from the parent's counter (the organization's
   * for a top-level department) and inserts the department. The counter's row lock serialises
   * siblings created at once, on any instance, until commit; an UPDATE waits for that lock and
   * then reads the latest counter, so every sibling gets its own order. No counter row (another
   * organization's parent or none at all) means the parent does not exist.
   *
   * Under a parent, the counter UPDATE's WHERE first takes the organization's tree lock SHARED
   * (`tree`, an InitPlan evaluated before the scan locks the parent), so the create waits for a
   * move in progress and never for another create; the parent's path (for the new path and the
   * depth check) is the one that UPDATE RETURNs, i.e. the newest committed version of the parent
   * row, even when the statement's snapshot predates a move that committed while it waited
   * (docs/directory.md, "Locking"). Past the depth limit nothing is inserted (the counter's bump
   * goes with the caller's rolled-back transaction, and gaps are allowed anyway).
   *
   * Runs in the caller's transaction (the idempotency record's) when there is one. The same
   * statement writes the `department.created` audit event, from the inserted row (no row, no event).
   */
  async insert(
    organizationId: string,
    department: { parentId: string | null; name: string; externalId: string | null },
    context: AuditContext,
  ): Promise<InsertOutcome> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const counter =
      department.parentId === null
        ? Prisma.sql`counter AS (UPDATE organizations SET last_top_level_order = last_top_level_order + 1
            WHERE id = ${org} RETURNING last_top_level_order AS next_order, (''::text COLLATE "C") AS parent_path)`
        : Prisma.sql`tree AS (SELECT organization_id FROM department_tree_locks WHERE organization_id = ${org} ${RowLock.forShare}),
          counter AS (UPDATE departments SET last_child_order = last_child_order + 1
            WHERE organization_id = ${org} AND id = ${department.parentId}::uuid AND EXISTS (SELECT 1 FROM tree)
            RETURNING last_child_order AS next_order, path AS parent_path)`;
    try {
      const [outcome] = await this.txHost.sql.query<Partial<DepartmentRow> & { parentFound: boolean }>(Prisma.sql`
        WITH ${counter},
        changed AS (
          INSERT INTO departments (id, organization_id, parent_id, name, name_key, external_id, "order", path, created_at, updated_at)
          SELECT fresh.id, ${org}, ${department.parentId}::uuid, ${department.name}, ${caselessKey(department.name)}, ${department.externalId}, next_order,
            parent_path || fresh.id::text || '/', ${context.at}::timestamptz, ${context.at}::timestamptz
          FROM counter, (SELECT gen_random_uuid() AS id) fresh
          WHERE length(parent_path) / ${PATH_CHARS_PER_LEVEL} < ${MAX_DEPARTMENT_LEVEL}
          RETURNING *),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: DirectoryAudit.DepartmentCreated,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: null,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: CREATED_DEPARTMENT_CHANGES,
        })}
        SELECT ${DEPARTMENT_OF_CHANGED}, EXISTS (SELECT 1 FROM counter) AS "parentFound"
        FROM (SELECT 1) one LEFT JOIN changed ON true`);
      if (outcome.id) return { kind: 'created', row: outcome as DepartmentRow };
      return outcome.parentFound ? { kind: 'too deep' } : { kind: 'parent not found' };
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** On the primary key; another organization's department is as missing as one that never was. */
  async findById(organizationId: string, id: string): Promise<DepartmentRow | undefined> {
    const [row] = await this.txHost.sql.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT.sql} FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    return row;
  }

  /** On the primary (a sync client must see the department it created a moment ago). */
  findByExternalId(organizationId: string, externalId: string): Promise<DepartmentRow[]> {
    return this.txHost.sql.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT.sql} FROM departments WHERE organization_id = ${organizationId}::uuid AND external_id = ${externalId}`);
  }

  /**
   * Up to `limit` children of a parent (or the top level) after `position`, in ("order", id) order:
   * one statement on the keyset index, read on the replica (it may lag).
   */
  listChildren(organizationId: string, parentId: string | null, position: ChildrenPosition | undefined, limit: number): Promise<DepartmentRow[]> {
    const ofParent = parentId === null ? Prisma.sql`parent_id IS NULL` : Prisma.sql`parent_id = ${parentId}::uuid`;
    const after = position ? Prisma.sql`AND ("order", id) > (${position.order}::bigint, ${position.id}::uuid)` : Prisma.empty;
    return this.txHost.replica.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT.sql} FROM departments
      WHERE organization_id = ${organizationId}::uuid AND ${ofParent} ${after}
      ORDER BY "order", id LIMIT ${limit}`);
  }

  /**
   * Up to `limit` departments below `parentId` at any depth (the whole tree when null), each before
   * its descendants: one range scan of the (organization_id, path) index in path order, read on the
   * replica. `afterId` continues after that department's path as it is now; `found` is false when
   * the parent or the department a page ended at no longer exists.
   */
  async listSubtree(organizationId: string, parentId: string | null, afterId: string | undefined, limit: number): Promise<{ found: boolean; rows: DepartmentRow[] }> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const pathOf = (id: string) => Prisma.sql`(SELECT path FROM departments WHERE organization_id = ${org} AND id = ${id}::uuid)`;
    const bounds: Prisma.Sql[] = [];
    if (parentId !== null) bounds.push(Prisma.sql`d.path > b.parent_path AND d.path < b.parent_path || '~'`);
    if (afterId !== undefined) bounds.push(Prisma.sql`d.path > b.after_path`);
    const rows = await this.txHost.replica.query<DepartmentRow & { found: boolean }>(Prisma.sql`
      WITH b AS (SELECT ${parentId === null ? Prisma.sql`NULL::text` : pathOf(parentId)} AS parent_path, ${afterId === undefined ? Prisma.sql`NULL::text` : pathOf(afterId)} AS after_path)
      SELECT ${columns<Department>('d')('id', 'externalId', 'name', 'order', 'parentId', 'revision', 'createdAt', 'updatedAt').sql},
        (${parentId === null ? Prisma.sql`true` : Prisma.sql`b.parent_path IS NOT NULL`} AND ${afterId === undefined ? Prisma.sql`true` : Prisma.sql`b.after_path IS NOT NULL`}) AS found
      FROM b LEFT JOIN LATERAL (
        SELECT * FROM departments d WHERE d.organization_id = ${org} ${bounds.length > 0 ? Prisma.sql`AND ${Prisma.join(bounds, ' AND ')}` : Prisma.empty}
        ORDER BY d.path LIMIT ${limit}) d ON true`);
    const found = rows[0]?.found ?? false;
    return { found, rows: rows.filter((row) => row.id !== null).map(({ found: _found, ...row }) => row) };
  }

  /**
   * The ancestors of a department from the top level down to its parent: its path's ids, read on
   * the (organization_id, id) index, in path order. Undefined when there is no such department.
   */
  async ancestors(organizationId: string, id: string): Promise<DepartmentRow[] | undefined> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const rows = await this.txHost.sql.query<Partial<DepartmentRow> & { found: boolean }>(Prisma.sql`
      WITH t AS (SELECT id, path FROM departments WHERE organization_id = ${org} AND id = ${id}::uuid)
      SELECT ${columns<Department>('a')('id', 'externalId', 'name', 'order', 'parentId', 'revision', 'createdAt', 'updatedAt').sql}, t.id IS NOT NULL AS found
      FROM (SELECT 1) one LEFT JOIN t ON true
      LEFT JOIN departments a ON a.organization_id = ${org} AND a.id <> t.id
        AND a.id = ANY (string_to_array(rtrim(t.path, '/'), '/')::uuid[])
      ORDER BY length(a.path)`);
    if (!rows[0]?.found) return undefined;
    return rows.filter((row) => row.id !== null).map(({ found: _found, ...row }) => row as DepartmentRow);
  }

  /**
   * Takes the organization's tree lock EXCLUSIVE for the rest of the caller's transaction: the
   * first statement of a move, so it holds nothing else while it waits (docs/directory.md, "Locking").
   */
  async lockTreeForMove(organizationId: string): Promise<void> {
    const rows = await this.txHost.sql.query(Prisma.sql`
      SELECT organization_id FROM department_tree_locks WHERE organization_id = ${organizationId}::uuid ${RowLock.forUpdate}`);
    if (rows.length !== 1) throw new Error(`The department tree lock row of organization ${organizationId} is missing`);
  }

  /**
   * The PATCH as one statement (departmentUpdateStatement, below). A move's is the last of the
   * transaction its caller opened for it (withSqlTransaction, after lockTreeForMove), sent with
   * the COMMIT; any other joins the caller's transaction, if any, as a statement of it.
   * Undefined: no such department.
   */
  async update(
    organizationId: string,
    id: string,
    change: DepartmentChange,
    guard: RevisionGuard,
    context: AuditContext,
  ): Promise<(DepartmentRow & DepartmentUpdateOutcome) | undefined> {
    try {
      const statement = departmentUpdateStatement(organizationId, id, change, guard, context, this.audit);
      const [row] = await (change.parentId === undefined
        ? this.txHost.sql.query<DepartmentRow & DepartmentUpdateOutcome>(statement)
        : this.txHost.sql.queryAndCommit<DepartmentRow & DepartmentUpdateOutcome>(statement));
      return row;
    } catch (error) {
      throw conflicts(parentVanished(error));
    }
  }

  /**
   * Deletes an empty department, in one statement: locks its row, counts its children and members,
   * deletes only at the required revision and with none, and writes the `department.deleted`
   * event. A child or membership created while the statement waited for the row is not in its
   * snapshot: its foreign key (ON DELETE RESTRICT) refuses the delete then, thrown as
   * ContentsAppeared. Undefined: no such department.
   */
  async delete(organizationId: string, id: string, guard: RevisionGuard, context: AuditContext): Promise<DeleteOutcome | undefined> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const revisionOk = guard.kind === 'none' ? Prisma.sql`true` : guard.kind === 'never' ? Prisma.sql`false` : Prisma.sql`t.revision = ${guard.revision}::bigint`;
    try {
      const [outcome] = await this.txHost.sql.query<{ storedRevision: bigint; children: bigint; members: bigint; deleted: boolean }>(Prisma.sql`
        WITH target AS (
          SELECT id, revision FROM departments WHERE organization_id = ${org} AND id = ${id}::uuid ${RowLock.forUpdate}),
        children AS (
          SELECT count(*) AS n FROM departments c, target t WHERE c.organization_id = ${org} AND c.parent_id = t.id),
        members AS (
          SELECT count(*) AS n FROM department_members m, target t WHERE m.organization_id = ${org} AND m.department_id = t.id),
        removed AS (
          DELETE FROM departments d USING target t, children, members
          WHERE d.organization_id = ${org} AND d.id = t.id AND ${revisionOk} AND children.n = 0 AND members.n = 0
          RETURNING d.*),
        ${this.audit.insertFrom(context, Prisma.sql`removed`, {
          organizationId,
          action: DirectoryAudit.DepartmentDeleted,
          resourceId: Prisma.sql`removed.id::text`,
          revisionBefore: Prisma.sql`removed.revision`,
          revisionAfter: null,
          changes: DELETED_DEPARTMENT_CHANGES,
        })}
        SELECT t.revision AS "storedRevision", children.n AS children, members.n AS members, EXISTS (SELECT 1 FROM removed) AS deleted
        FROM target t, children, members`);
      return outcome && { storedRevision: outcome.storedRevision, contents: { children: Number(outcome.children), members: Number(outcome.members) }, deleted: outcome.deleted };
    } catch (error) {
      throw contentsAppeared(error);
    }
  }

  /** How many children and members a department has now (a fresh statement, after ContentsAppeared). */
  async countContents(organizationId: string, id: string): Promise<DepartmentContents> {
    const [row] = await this.txHost.sql.query<{ children: bigint; members: bigint }>(Prisma.sql`
      SELECT (SELECT count(*) FROM departments WHERE organization_id = ${organizationId}::uuid AND parent_id = ${id}::uuid) AS children,
        (SELECT count(*) FROM department_members WHERE organization_id = ${organizationId}::uuid AND department_id = ${id}::uuid) AS members`);
    return { children: Number(row.children), members: Number(row.members) };
  }
}

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
 * and the write all see the version being replaced. A move then locks the new parent's row (the
 * organization's for the top level), whose order counter gives the moved department its order and
 * is bumped only when the move is written; measures the moved subtree's depth from its path
 * range; and rewrites every path of the subtree in the one UPDATE (rows ∝ subtree size,
 * statements constant). `verdict` says whether the change may be written; the UPDATEs write only
 * when it may and something differs; the audit CTE writes one event from the department's own
 * row. A refused change writes nothing, so the statement may end a move's transaction (sent with
 * its COMMIT). The final row carries the verdict and the department, as written or as it is.
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

  // The new parent's row (the organization's for the top level), locked as the counter's UPDATE
  // locks it (FOR NO KEY UPDATE: inserts whose foreign key points at it go on), with the order its
  // next child gets; `counter` writes that order only when the move is written.
  const newParent =
    change.parentId === null
      ? Prisma.sql`SELECT (''::text COLLATE "C") AS path, o.last_top_level_order + 1 AS next_order FROM organizations o
          WHERE o.id = ${org} AND EXISTS (SELECT 1 FROM target t WHERE t.parent_id IS NOT NULL) ${RowLock.forNoKeyUpdate}`
      : Prisma.sql`SELECT p.path, p.last_child_order + 1 AS next_order FROM departments p
          WHERE p.organization_id = ${org} AND p.id = ${parent}
            AND EXISTS (SELECT 1 FROM target t WHERE p.id <> t.id AND p.id IS DISTINCT FROM t.parent_id) ${RowLock.forNoKeyUpdate}`;
  const writable = Prisma.sql`v.revision_ok AND NOT v.cycle AND v.parent_found AND NOT v.too_deep AND v.is_change`;
  const counter =
    change.parentId === null
      ? Prisma.sql`UPDATE organizations o SET last_top_level_order = v.next_order FROM verdict v WHERE o.id = ${org} AND v.moving AND ${writable}`
      : Prisma.sql`UPDATE departments p SET last_child_order = v.next_order FROM verdict v
          WHERE p.organization_id = ${org} AND p.id = ${parent} AND v.moving AND ${writable}`;

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
      WHERE d.organization_id = ${org} AND d.path >= v.path AND d.path < v.path || '~' AND ${rows} AND ${writable}
      RETURNING d.id, d.external_id, d.name, d."order", d.parent_id, d.revision, d.created_at, d.updated_at),
    ${move ? Prisma.sql`counter AS (${counter}),` : Prisma.empty}
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
