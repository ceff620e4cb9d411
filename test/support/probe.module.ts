import { Body, Controller, Get, Module, Post, Query, Req, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { IsString } from 'class-validator';
import { CurrentPrincipal, type Principal } from '../../src/common/auth/principal';
import { Public, RequireScope } from '../../src/common/auth/auth.decorators';
import { MaxCodePoints, Required } from '../../src/common/validation/field-rules';
import { SqlHost } from '../../src/database/sql-host';
import { Prisma } from '../../src/generated/prisma/client';
import { DirectoryScope } from '../../src/modules/directory/directory.scopes';
import { QuotaScope } from '../../src/modules/quota/quota.scopes';

export class ProbeBodyDto {
  @Required()
  @IsString()
  @MaxCodePoints(5)
  text: string;
}

/** Routes that exercise the cross-cutting pieces without depending on a feature module. */
@ApiExcludeController()
@Controller('probe')
export class ProbeController {
  constructor(private readonly txHost: SqlHost) {}

  @Get('quota-read')
  @RequireScope(QuotaScope.Read)
  quotaRead(@CurrentPrincipal() principal: Principal) {
    return { organization_id: principal.organizationId };
  }

  @Post('directory-manage')
  @RequireScope(DirectoryScope.Manage)
  directoryManage(@Body() body: ProbeBodyDto) {
    return { text: body.text };
  }

  @Get('undeclared')
  undeclared() {
    return { reached: true };
  }

  /** Hands a query parameter (which no body rule sees) to the database as text or inside jsonb. */
  @Public()
  @Get('store-text')
  async storeText(@Query('text') text: string, @Query('as') as: string) {
    const [row] = await (as === 'jsonb'
      ? this.txHost.sql.query<{ value: unknown }>(Prisma.sql`SELECT ${JSON.stringify({ text })}::jsonb AS value`)
      : this.txHost.sql.query<{ value: unknown }>(Prisma.sql`SELECT ${text}::text AS value`));
    return row;
  }

  /** The client address as the service sees it (req.ip, under TRUST_PROXY). */
  @Public()
  @Get('client-address')
  clientAddress(@Req() request: Request) {
    return { ip: request.ip };
  }

  /** A 503 raised the framework's way, without the service's own error type. */
  @Public()
  @Get('unavailable')
  unavailable(): never {
    throw new ServiceUnavailableException();
  }

  @Public()
  @Get('boom')
  boom(): never {
    throw new Error('connection to 10.1.2.3 failed: password authentication failed for user "secret_user"');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
