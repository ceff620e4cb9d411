import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Readiness } from '../../common/lifecycle/readiness';
import { DatabaseOutageLog } from '../../database/outage-log';
import { TransactionHost } from '../../database/transaction-host';
import { Prisma } from '../../generated/prisma/client';

/** Liveness and readiness for orchestrators; no API key needed. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly txHost: TransactionHost,
    private readonly readiness: Readiness,
    private readonly outageLog: DatabaseOutageLog,
  ) {}

  @Get('healthz')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(): Promise<{ status: string }> {
    if (this.readiness.isDraining) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The instance is shutting down.');
    try {
      await this.txHost.sql.query(Prisma.sql`SELECT 1 AS one`);
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable.');
    }
    this.outageLog.available();
    return { status: 'ready' };
  }
}
