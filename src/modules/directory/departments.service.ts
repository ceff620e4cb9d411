import { Injectable } from '@nestjs/common';
import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { isUniqueViolation, violatedConstraint } from '../../database/prisma-errors';
import { toDepartmentDto } from './department.mapper';
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
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterPrisma>) {}

  /** Joins the caller's transaction (the idempotency record's) or opens one. */
  @Transactional()
  async create(organizationId: string, input: CreateDepartmentDto): Promise<DepartmentDto> {
    const parentId = input.parent_id ?? null;
    if (parentId !== null) await this.requireParent(organizationId, parentId);
    await this.lockSiblings(organizationId, parentId);
    const { _max } = await this.txHost.tx.department.aggregate({ _max: { order: true }, where: { organizationId, parentId } });
    try {
      const department = await this.txHost.tx.department.create({
        data: { organizationId, parentId, name: input.name, externalId: input.external_id ?? null, order: (_max.order ?? 0n) + 1n },
      });
      return toDepartmentDto(department);
    } catch (error) {
      const conflict = isUniqueViolation(error) ? CONFLICT_BY_CONSTRAINT[violatedConstraint(error) ?? ''] : undefined;
      throw conflict ? conflict() : error;
    }
  }

  /** Another organization's department is answered exactly like one that does not exist. */
  private async requireParent(organizationId: string, parentId: string): Promise<void> {
    const parent = await this.txHost.tx.department.findUnique({
      where: { organizationId_id: { organizationId, id: parentId } },
      select: { id: true },
    });
    if (!parent) {
      throw new AppError(ErrorCode.PARENT_NOT_FOUND, 'No department with this parent_id exists in the organization.', {
        field: 'parent_id',
        reason: 'not_found',
      });
    }
  }

  /**
   * Serialises creations under one parent until commit, so that `max(order) + 1` gives every
   * sibling its own order even with several instances. Other parents are not held up.
   */
  private async lockSiblings(organizationId: string, parentId: string | null): Promise<void> {
    const name = `departments:${organizationId}:${parentId ?? 'top'}`;
    await this.txHost.tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
  }
}
