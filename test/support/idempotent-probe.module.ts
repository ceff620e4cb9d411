import { Body, Controller, HttpCode, Module, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TransactionHost } from '../../src/database/transaction-host';
import { IsString } from 'class-validator';
import { RequireScope } from '../../src/common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../src/common/auth/principal';
import { AppError } from '../../src/common/errors/app-error';
import { Idempotent } from '../../src/common/idempotency/idempotent.decorator';
import { Required } from '../../src/common/validation/field-rules';
import { ExpertSuitesScope } from '../../src/modules/expert-suites/expert-suites.scopes';
import { ExpertSuitesError } from '../../src/modules/expert-suites/expert-suites.errors';

export class ProbeNoteDto {
  @Required()
  @IsString()
  note: string;
}

/** A write of another module made idempotent by the decorator alone; counts how often it really runs. */
@ApiExcludeController()
@Controller('probe/idempotent')
export class IdempotentProbeController {
  calls = 0;

  constructor(private readonly txHost: TransactionHost) {}

  @Post(':name')
  @HttpCode(200)
  @RequireScope(ExpertSuitesScope.Manage)
  @Idempotent()
  async write(@CurrentPrincipal() principal: Principal, @Param('name') name: string, @Body() body: ProbeNoteDto) {
    this.calls++;
    const category = await this.txHost.tx.category.create({ data: { organizationId: principal.organizationId, name } });
    if (body.note === 'fail after writing') throw new AppError(ExpertSuitesError.INVALID_STATUS_TRANSITION, 'Failed on purpose after a write.');
    return { category_id: category.id, calls: this.calls, note: body.note };
  }
}

@Module({ controllers: [IdempotentProbeController] })
export class IdempotentProbeModule {}

/** A SQL-transaction route whose controller can reach model queries: the application must refuse to start. */
@ApiExcludeController()
@Controller('probe/sql-only-mismatch')
export class SqlOnlyMismatchProbeController {
  constructor(private readonly txHost: TransactionHost) {}

  @Post()
  @RequireScope(ExpertSuitesScope.Manage)
  @Idempotent({ sqlOnly: true })
  async write(@CurrentPrincipal() principal: Principal) {
    return this.txHost.tx.category.count({ where: { organizationId: principal.organizationId } });
  }
}

@Module({ controllers: [SqlOnlyMismatchProbeController] })
export class SqlOnlyMismatchProbeModule {}
