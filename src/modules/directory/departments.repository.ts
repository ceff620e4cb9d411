import { Injectable } from '@nestjs/common';
import type { AuditContext } from '../../common/audit/audit-event';
import { AuditStatements, sqlChanges } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import { caselessKey } from '../../common/text/caseless-key';
import { columns, type RowOf } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Department } from '../../generated/prisma/client';
import { DirectoryAudit } from './directory.audit';
import { DirectoryError } from './directory.errors';

export const DEPARTMENT = columns<Department>()('id', 'externalId', 'name', 'order', 'parentId');
export type DepartmentRow = RowOf<typeof DEPARTMENT>;

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
   * organization's parent or none at all) means the parent does not exist: no row is returned.
   * Runs in the caller's transaction (the idempotency record's) when there is one. The same
   * statement writes the `department.created` audit event, from the inserted row (no row, no event).
   */
  async insert(
    organizationId: string,
    department: { parentId: string | null; name: string; externalId: string | null },
    context: AuditContext,
  ): Promise<DepartmentRow | undefined> {
    const nextOrder =
      department.parentId === null
        ? Prisma.sql`UPDATE organizations SET last_top_level_order = last_top_level_order + 1
            WHERE id = ${organizationId}::uuid RETURNING last_top_level_order AS next_order, '' AS parent_path`
        : Prisma.sql`UPDATE departments SET last_child_order = last_child_order + 1
            WHERE organization_id = ${organizationId}::uuid AND id = ${department.parentId}::uuid RETURNING last_child_order AS next_order, path AS parent_path`;
    try {
      const [row] = await this.txHost.sql.query<DepartmentRow>(Prisma.sql`
        WITH counter AS (${nextOrder}),
        changed AS (
          INSERT INTO departments (id, organization_id, parent_id, name, name_key, external_id, "order", path)
          SELECT fresh.id, ${organizationId}::uuid, ${department.parentId}::uuid, ${department.name}, ${caselessKey(department.name)}, ${department.externalId}, next_order,
            parent_path || fresh.id::text || '/'
          FROM counter, (SELECT gen_random_uuid() AS id) fresh
          RETURNING id, external_id, name, "order", parent_id),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: DirectoryAudit.DepartmentCreated,
          resourceId: Prisma.sql`changed.id::text`,
          changes: CREATED_DEPARTMENT_CHANGES,
        })}
        SELECT ${DEPARTMENT.sql} FROM changed`);
      return row;
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
}
