import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { checkRevision, type RevisionRequirement } from '../../common/http/write-preconditions';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage, type SortValueRange } from '../../common/pagination/page-token';
import { SqlHost } from '../../database/sql-host';
import { toDepartmentDto } from './department.mapper';
import { ContentsAppeared, DepartmentsRepository, type DepartmentContents, type DepartmentRow, MAX_DEPARTMENT_LEVEL, type DepartmentChange, type RevisionGuard } from './departments.repository';
import { DirectoryError } from './directory.errors';
import type { CreateDepartmentDto } from './dto/create-department.dto';
import type { DepartmentDto } from './dto/department.dto';
import type { DepartmentPageDto } from './dto/department-page.dto';
import type { ListDepartmentsQueryDto } from './dto/list-departments-query.dto';
import type { UpdateDepartmentDto } from './dto/update-department.dto';

const parentNotFound = () =>
  new AppError(DirectoryError.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' });

const tooDeep = () =>
  new AppError(DirectoryError.DEPARTMENT_TOO_DEEP, `A department tree is at most ${MAX_DEPARTMENT_LEVEL} levels deep (a top-level department is level 1); this would go past it.`, {
    field: 'parent_id',
    reason: 'invalid_value',
  });

const departmentNotFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No department ${id} exists in this organization.`);

/** A subtree page token carries only the id of the department the page ended at. */
const SUBTREE_POSITION: SortValueRange = { min: 0n, max: 0n };

/** What the SQL checks of a requirement: the precondition's revision, or that nothing may be written (If-None-Match: *). */
function guardOf(requirement: RevisionRequirement): RevisionGuard {
  if (requirement.kind === 'revision') return { kind: 'revision', revision: requirement.revision };
  return requirement.kind === 'absent' ? { kind: 'never' } : { kind: 'none' };
}

@Injectable()
export class DepartmentsService {
  constructor(
    private readonly txHost: SqlHost,
    private readonly departments: DepartmentsRepository,
    private readonly clock: Clock,
  ) {}

  /** Under the parent (which must be the organization's), with the next sibling order; runs in the caller's transaction (the idempotency record's). */
  async create(organizationId: string, input: CreateDepartmentDto, actor: AuditActor): Promise<DepartmentDto> {
    const outcome = await this.departments.insert(
      organizationId,
      { parentId: input.parent_id ?? null, name: input.name, externalId: input.external_id ?? null },
      { actor, at: this.clock.now() },
    );
    if (outcome.kind === 'parent not found') throw parentNotFound();
    if (outcome.kind === 'too deep') throw tooDeep();
    return toDepartmentDto(outcome.row);
  }

  async get(organizationId: string, departmentId: string): Promise<DepartmentDto> {
    const row = await this.departments.findById(organizationId, departmentId);
    if (!row) throw departmentNotFound(departmentId);
    return toDepartmentDto(row);
  }

  /**
   * One statement for a rename, an external_id or an order (a compare-and-set under the row's
   * lock); a body with parent_id is a move: its own transaction, whose first statement takes the
   * organization's tree lock exclusively and whose second is that same statement with the move
   * (docs/directory.md, "Locking"), sent together with the COMMIT: one round trip. A refused
   * change writes nothing.
   */
  async update(organizationId: string, departmentId: string, body: UpdateDepartmentDto, requirement: RevisionRequirement, actor: AuditActor): Promise<DepartmentDto> {
    const change: DepartmentChange = { name: body.name, externalId: body.external_id, order: body.order, parentId: body.parent_id };
    const write = () => this.departments.update(organizationId, departmentId, change, guardOf(requirement), { actor, at: this.clock.now() });
    const row =
      change.parentId === undefined
        ? await write()
        : await this.txHost.withSqlTransaction(async () => (await Promise.all([this.departments.lockTreeForMove(organizationId), write()]))[1]);
    if (!row) throw departmentNotFound(departmentId);
    checkRevision(requirement, row.storedRevision, 'department');
    if (row.cycle) {
      throw new AppError(DirectoryError.DEPARTMENT_CYCLE, 'parent_id is the department itself or one of its descendants: a department cannot be moved into its own subtree.', {
        field: 'parent_id',
        reason: 'invalid_value',
      });
    }
    if (!row.parentFound) throw parentNotFound();
    if (row.tooDeep) throw tooDeep();
    return toDepartmentDto(row);
  }

  /** Only an empty department; DEPARTMENT_NOT_EMPTY says how many children and members it has. */
  async delete(organizationId: string, departmentId: string, requirement: RevisionRequirement, actor: AuditActor): Promise<void> {
    let contents: DepartmentContents;
    try {
      const outcome = await this.departments.delete(organizationId, departmentId, guardOf(requirement), { actor, at: this.clock.now() });
      if (!outcome) throw departmentNotFound(departmentId);
      checkRevision(requirement, outcome.storedRevision, 'department');
      if (outcome.deleted) return;
      contents = outcome.contents;
    } catch (error) {
      if (!(error instanceof ContentsAppeared)) throw error;
      contents = await this.departments.countContents(organizationId, departmentId);
    }
    throw new AppError(DirectoryError.DEPARTMENT_NOT_EMPTY, notEmptyDetail(contents));
  }

  /** From the top level down to the parent; empty for a top-level department. */
  async ancestors(organizationId: string, departmentId: string): Promise<DepartmentDto[]> {
    const rows = await this.departments.ancestors(organizationId, departmentId);
    if (!rows) throw departmentNotFound(departmentId);
    return rows.map(toDepartmentDto);
  }

  /** The children of one parent (or the top level) page by page, every department below it (recursive), or the department with an external_id. */
  async list(organizationId: string, query: ListDepartmentsQueryDto): Promise<DepartmentPageDto> {
    if (query.external_id !== undefined) {
      const other = query.parent_id !== undefined ? 'parent_id' : query.recursive !== undefined ? 'recursive' : query.page_token !== undefined ? 'page_token' : undefined;
      if (other) throw AppError.validation('external_id', 'conflicting_fields', `external_id finds one department anywhere in the tree; it cannot be combined with ${other}.`);
      const rows = await this.departments.findByExternalId(organizationId, query.external_id);
      return { items: rows.map(toDepartmentDto), next_page_token: null };
    }
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    if (query.recursive === 'true') return this.listSubtree(organizationId, query.parent_id ?? null, pageSize, query.page_token);
    return this.listChildren(organizationId, query.parent_id ?? null, pageSize, query.page_token);
  }

  /**
   * Keyset pagination on ("order", id), one row more than the page to learn whether another page
   * follows. New siblings get the next order, so they land after every page already read: nothing
   * is skipped or repeated while rows are added. Only an empty page is followed by a look at the
   * parent (on the primary, so that a parent created a moment ago is not answered 404), to tell
   * "no children" from "no such parent".
   */
  private async listChildren(organizationId: string, parentId: string | null, pageSize: number, pageToken: string | undefined): Promise<DepartmentPageDto> {
    const tokenQuery = ['departments', organizationId, parentId ?? ''];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, pageToken, 'parent_id');
    const rows = await this.departments.listChildren(organizationId, parentId, position && { order: position.after, id: position.id }, pageSize + 1);
    if (rows.length === 0 && parentId !== null) await this.get(organizationId, parentId);
    return this.page(tokenQuery, rows, pageSize, (row) => ({ after: String(row.order), id: row.id }));
  }

  /**
   * Keyset pagination on the path (each department before its descendants): the token names the
   * department the page ended at, and the next page continues after its path as it is then. A page
   * whose parent, or whose last department, is gone by the next request: 404, or 400 naming page_token.
   */
  private async listSubtree(organizationId: string, parentId: string | null, pageSize: number, pageToken: string | undefined): Promise<DepartmentPageDto> {
    const tokenQuery = ['departments-subtree', organizationId, parentId ?? ''];
    const position = startOfPage(tokenQuery, SUBTREE_POSITION, pageToken, 'parent_id and recursive');
    const { found, rows } = await this.departments.listSubtree(organizationId, parentId, position?.id, pageSize + 1);
    if (!found) {
      if (parentId !== null) await this.get(organizationId, parentId);
      throw AppError.validation('page_token', 'invalid_value', 'The department this page_token continues after no longer exists; start again without page_token.');
    }
    return this.page(tokenQuery, rows, pageSize, (row) => ({ after: '0', id: row.id }));
  }

  private page(tokenQuery: string[], rows: DepartmentRow[], pageSize: number, positionOf: (row: DepartmentRow) => { after: string; id: string }): DepartmentPageDto {
    const page = pageOfRows(tokenQuery, rows, pageSize, positionOf);
    return { items: page.items.map(toDepartmentDto), next_page_token: page.next_page_token };
  }
}

/** "The department has 2 child departments and 1 member; …": what stops a delete, by count. */
function notEmptyDetail({ children, members }: DepartmentContents): string {
  const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const held = [children > 0 && counted(children, 'child department', 'child departments'), members > 0 && counted(members, 'member', 'members')].filter(Boolean).join(' and ');
  // Zero of both: what a foreign key refused was gone again by the count; the delete may be retried.
  if (held === '') return 'A child department or member was added while the department was being deleted. Nothing was deleted.';
  return `The department has ${held}; move or delete the child departments and remove the members first. Nothing was deleted.`;
}
