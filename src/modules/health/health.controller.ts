import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Readiness } from '../../common/lifecycle/readiness';
import { DatabaseOutageLog } from '../../database/outage-log';
import { PrismaService } from '../../database/prisma.service';

/** Liveness and readiness for orchestrators; no API key needed. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
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
      await this.prisma.$queryRaw`SELECT 1`;
    } catch {
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable.');
    }
    this.outageLog.available();
    return { status: 'ready' };
  }
}
