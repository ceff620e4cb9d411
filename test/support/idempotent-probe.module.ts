import { Body, Controller, HttpCode, Module, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { SqlHost } from '../../src/database/sql-host';
import { Prisma } from '../../src/generated/prisma/client';
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

  constructor(private readonly txHost: SqlHost) {}

  @Post(':name')
  @HttpCode(200)
  @RequireScope(ExpertSuitesScope.Manage)
  @Idempotent()
  async write(@CurrentPrincipal() principal: Principal, @Param('name') name: string, @Body() body: ProbeNoteDto) {
    this.calls++;
    const [category] = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      INSERT INTO categories (id, organization_id, name) VALUES (${randomUUID()}::uuid, ${principal.organizationId}::uuid, ${name}) RETURNING id`);
    if (body.note === 'fail after writing') throw new AppError(ExpertSuitesError.INVALID_STATUS_TRANSITION, 'Failed on purpose after a write.');
    return { category_id: category.id, calls: this.calls, note: body.note };
  }
}

@Module({ controllers: [IdempotentProbeController] })
export class IdempotentProbeModule {}
