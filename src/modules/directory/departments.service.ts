import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Prisma } from '../../generated/prisma/client';
import { isUniqueViolation, violatedConstraint } from '../../database/prisma-errors';
import { toDepartmentDto, type DepartmentRow } from './department.mapper';
import type { CreateDepartmentDto } from './dto/create-department.dto';
import type { DepartmentDto } from './dto/department.dto';

// Unique indexes of prisma/migrations (init): the database, not this code, enforces uniqueness.
const CONFLICT_BY_CONSTRAINT: Record<string, () => AppError> = {
  departments_sibling_name_key: () =>
    new AppError(ErrorCode.DEPARTMENT_NAME_CONFLICT, 'A department with this name (ignoring case) already exists under the same parent.'),
  departments_organization_id_external_id_key: () =>
    new AppError(ErrorCode.EXTERNAL_ID_CONFLICT, 'Another department of the organization already has this external_id.'),
};

@Injectable()
export class DepartmentsService {
  constructor(private readonly txHost: TransactionHost) {}

  /**
   * One statement: takes the next sibling order from the parent's counter (the organization's
   * for a top-level department) and inserts the department. The counter's row lock serialises
   * siblings created at once, on any instance, until commit; an UPDATE waits for that lock and
   * then reads the latest counter, so every sibling gets its own order. No counter row (another
   * organization's parent or none at all) means the parent does not exist.
   * Runs in the caller's transaction (the idempotency record's) when there is one.
   */
  async create(organizationId: string, input: CreateDepartmentDto): Promise<DepartmentDto> {
    const parentId = input.parent_id ?? null;
    const nextOrder =
      parentId === null
        ? Prisma.sql`UPDATE organizations SET last_top_level_order = last_top_level_order + 1
            WHERE id = ${organizationId}::uuid RETURNING last_top_level_order AS next_order`
        : Prisma.sql`UPDATE departments SET last_child_order = last_child_order + 1
            WHERE organization_id = ${organizationId}::uuid AND id = ${parentId}::uuid RETURNING last_child_order AS next_order`;
    let rows: DepartmentRow[];
    try {
      rows = await this.txHost.tx.$queryRaw<DepartmentRow[]>`
        WITH counter AS (${nextOrder})
        INSERT INTO departments (id, organization_id, parent_id, name, external_id, "order")
        SELECT gen_random_uuid(), ${organizationId}::uuid, ${parentId}::uuid, ${input.name}, ${input.external_id ?? null}, next_order FROM counter
        RETURNING id, external_id AS "externalId", name, "order", parent_id AS "parentId"`;
    } catch (error) {
      const conflict = isUniqueViolation(error) ? CONFLICT_BY_CONSTRAINT[violatedConstraint(error) ?? ''] : undefined;
      throw conflict ? conflict() : error;
    }
    if (rows.length === 0) {
      throw new AppError(ErrorCode.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', {
        field: 'parent_id',
        reason: 'not_found',
      });
    }
    return toDepartmentDto(rows[0]);
  }
}
