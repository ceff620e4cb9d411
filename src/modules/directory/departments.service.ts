import { Injectable } from '@nestjs/common';
import { SqlHost } from '../../database/sql-host';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Prisma } from '../../generated/prisma/client';
import { insertedRow, violations } from '../../database/constraint-violations';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { toDepartmentDto, type DepartmentRow } from './department.mapper';
import type { CreateDepartmentDto } from './dto/create-department.dto';
import type { DepartmentDto } from './dto/department.dto';
import type { DepartmentPageDto } from './dto/department-page.dto';
import type { ListDepartmentsQueryDto } from './dto/list-departments-query.dto';
import { DirectoryError } from './directory.errors';
import { caselessKey } from '../../common/text/caseless-key';
import { Clock } from '../../common/clock';
import type { AuditActor } from '../../common/audit/audit-actor';
import { AuditStatements, sqlChanges } from '../../common/audit/audit-event';
import { DirectoryAudit } from './directory.audit';

const DEPARTMENT_COLUMNS = Prisma.sql`id, external_id AS "externalId", name, "order", parent_id AS "parentId"`;

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

const parentNotFound = () =>
  new AppError(DirectoryError.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' });

@Injectable()
export class DepartmentsService {
  /** SqlHost: raw statements only, so the create runs in the SQL transaction of @Idempotent({ sqlOnly: true }). */
  constructor(
    private readonly txHost: SqlHost,
    private readonly clock: Clock,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * One statement: takes the next sibling order from the parent's counter (the organization's
   * for a top-level department) and inserts the department. The counter's row lock serialises
   * siblings created at once, on any instance, until commit; an UPDATE waits for that lock and
   * then reads the latest counter, so every sibling gets its own order. No counter row (another
   * organization's parent or none at all) means the parent does not exist.
   * Runs in the caller's transaction (the idempotency record's) when there is one. The same
   * statement writes the `department.created` audit event, from the inserted row (no row, no event).
   */
  async create(organizationId: string, input: CreateDepartmentDto, actor: AuditActor): Promise<DepartmentDto> {
    const parentId = input.parent_id ?? null;
    const nextOrder =
      parentId === null
        ? Prisma.sql`UPDATE organizations SET last_top_level_order = last_top_level_order + 1
            WHERE id = ${organizationId}::uuid RETURNING last_top_level_order AS next_order`
        : Prisma.sql`UPDATE departments SET last_child_order = last_child_order + 1
            WHERE organization_id = ${organizationId}::uuid AND id = ${parentId}::uuid RETURNING last_child_order AS next_order`;
    let rows: DepartmentRow[];
    try {
      rows = await this.txHost.sql.query<DepartmentRow>(Prisma.sql`
        WITH counter AS (${nextOrder}),
        changed AS (
          INSERT INTO departments (id, organization_id, parent_id, name, name_key, external_id, "order")
          SELECT gen_random_uuid(), ${organizationId}::uuid, ${parentId}::uuid, ${input.name}, ${caselessKey(input.name)}, ${input.external_id ?? null}, next_order FROM counter
          RETURNING id, external_id, name, "order", parent_id),
        ${this.audit.insertFrom({ actor, at: this.clock.now() }, Prisma.sql`changed`, {
          organizationId,
          action: DirectoryAudit.DepartmentCreated,
          resourceId: Prisma.sql`changed.id::text`,
          changes: CREATED_DEPARTMENT_CHANGES,
        })}
        SELECT id, external_id AS "externalId", name, "order", parent_id AS "parentId" FROM changed`);
    } catch (error) {
      throw conflicts(error);
    }
    return toDepartmentDto(insertedRow(rows, parentNotFound));
  }

  /** One statement on the primary key; another organization's department is as missing as one that never was. */
  async get(organizationId: string, departmentId: string): Promise<DepartmentDto> {
    const [row] = await this.txHost.sql.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT_COLUMNS} FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid`);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `No department ${departmentId} exists in this organization.`);
    return toDepartmentDto(row);
  }

  /** The children of one parent (or the top level) page by page, or the department with an external_id. */
  list(organizationId: string, query: ListDepartmentsQueryDto): Promise<DepartmentPageDto> {
    if (query.external_id !== undefined) {
      const other = query.parent_id !== undefined ? 'parent_id' : query.page_token !== undefined ? 'page_token' : undefined;
      if (other) throw AppError.validation('external_id', 'conflicting_fields', `external_id finds one department anywhere in the tree; it cannot be combined with ${other}.`);
      return this.findByExternalId(organizationId, query.external_id);
    }
    return this.listChildren(organizationId, query.parent_id ?? null, query.page_size ?? DEFAULT_PAGE_SIZE, query.page_token);
  }

  /**
   * On the primary, not the replica: a client that syncs from another system looks a department
   * up by external_id to decide whether to create it or to create children under it, and must see
   * the one it created a moment ago (docs/scaling.md).
   */
  private async findByExternalId(organizationId: string, externalId: string): Promise<DepartmentPageDto> {
    const rows = await this.txHost.sql.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT_COLUMNS} FROM departments WHERE organization_id = ${organizationId}::uuid AND external_id = ${externalId}`);
    return { items: rows.map(toDepartmentDto), next_page_token: null };
  }

  /**
   * Keyset pagination on ("order", id): one indexed statement per page, which fetches one row more
   * than the page to learn whether another page follows. New siblings get the next order, so they
   * land after every page already read: nothing is skipped or repeated while rows are added. Only
   * an empty page is followed by a look at the parent, to tell "no children" from "no such parent".
   * The page is read on the replica (it may lag); the look at the parent on the primary, so that a
   * parent created a moment ago is not answered 404.
   */
  private async listChildren(organizationId: string, parentId: string | null, pageSize: number, pageToken: string | undefined): Promise<DepartmentPageDto> {
    const tokenQuery = ['departments', organizationId, parentId ?? ''];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, pageToken, 'parent_id');
    const ofParent = parentId === null ? Prisma.sql`parent_id IS NULL` : Prisma.sql`parent_id = ${parentId}::uuid`;
    const after = position ? Prisma.sql`AND ("order", id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    const rows = await this.txHost.replica.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT_COLUMNS} FROM departments
      WHERE organization_id = ${organizationId}::uuid AND ${ofParent} ${after}
      ORDER BY "order", id LIMIT ${pageSize + 1}`);
    if (rows.length === 0 && parentId !== null) await this.get(organizationId, parentId);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.order), id: row.id }));
    return { items: page.items.map(toDepartmentDto), next_page_token: page.next_page_token };
  }
}
