import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { toDepartmentDto } from './department.mapper';
import { DepartmentsRepository } from './departments.repository';
import { DirectoryError } from './directory.errors';
import type { CreateDepartmentDto } from './dto/create-department.dto';
import type { DepartmentDto } from './dto/department.dto';
import type { DepartmentPageDto } from './dto/department-page.dto';
import type { ListDepartmentsQueryDto } from './dto/list-departments-query.dto';

const parentNotFound = () =>
  new AppError(DirectoryError.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' });

const departmentNotFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No department ${id} exists in this organization.`);

@Injectable()
export class DepartmentsService {
  constructor(
    private readonly departments: DepartmentsRepository,
    private readonly clock: Clock,
  ) {}

  /** Under the parent (which must be the organization's), with the next sibling order; runs in the caller's transaction (the idempotency record's). */
  async create(organizationId: string, input: CreateDepartmentDto, actor: AuditActor): Promise<DepartmentDto> {
    const row = await this.departments.insert(
      organizationId,
      { parentId: input.parent_id ?? null, name: input.name, externalId: input.external_id ?? null },
      { actor, at: this.clock.now() },
    );
    if (!row) throw parentNotFound();
    return toDepartmentDto(row);
  }

  async get(organizationId: string, departmentId: string): Promise<DepartmentDto> {
    const row = await this.departments.findById(organizationId, departmentId);
    if (!row) throw departmentNotFound(departmentId);
    return toDepartmentDto(row);
  }

  /** The children of one parent (or the top level) page by page, or the department with an external_id. */
  async list(organizationId: string, query: ListDepartmentsQueryDto): Promise<DepartmentPageDto> {
    if (query.external_id !== undefined) {
      const other = query.parent_id !== undefined ? 'parent_id' : query.page_token !== undefined ? 'page_token' : undefined;
      if (other) throw AppError.validation('external_id', 'conflicting_fields', `external_id finds one department anywhere in the tree; it cannot be combined with ${other}.`);
      const rows = await this.departments.findByExternalId(organizationId, query.external_id);
      return { items: rows.map(toDepartmentDto), next_page_token: null };
    }
    return this.listChildren(organizationId, query.parent_id ?? null, query.page_size ?? DEFAULT_PAGE_SIZE, query.page_token);
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
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.order), id: row.id }));
    return { items: page.items.map(toDepartmentDto), next_page_token: page.next_page_token };
  }
}
