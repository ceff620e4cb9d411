import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Readiness } from '../../common/lifecycle/readiness';
import { DatabasePing } from '../../database/database-ping';
import { DatabaseOutageLog } from '../../database/outage-log';

/**
 * Liveness and readiness for orchestrators; no API key needed. Readiness asks the database on a
 * connection of its own, not through the pool: an instance whose pool is busy (every connection
 * waiting on a lock another session holds) still serves other requests and must stay in rotation.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabasePing,
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
      await this.database.ping();
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable.');
    }
    this.outageLog.available();
    return { status: 'ready' };
  }
}
