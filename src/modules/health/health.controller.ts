import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Readiness } from '../../common/lifecycle/readiness';
import { DatabasePing } from '../../database/database-ping';
import { DatabaseReplica } from '../../database/database-replica';
import { DatabaseOutageLog } from '../../database/outage-log';

/** The read replica as readiness saw it, when DATABASE_REPLICA_URL is set. */
type ReplicaState = 'ready' | 'unreachable, reads on the primary';

/**
 * Liveness and readiness for orchestrators; no API key needed. Readiness asks the database on a
 * connection of its own, not through the pool: an instance whose pool is busy (every connection
 * waiting on a lock another session holds) still serves other requests and must stay in rotation.
 * A read replica (DATABASE_REPLICA_URL) is asked too, but only reported: while it is out its reads
 * go to the primary, so the instance still serves everything; taking every instance out of
 * rotation because the one replica they share is down would turn a slower database into an outage.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly database: DatabasePing,
    private readonly readiness: Readiness,
    private readonly outageLog: DatabaseOutageLog,
    private readonly replica: DatabaseReplica,
  ) {}

  @Get('healthz')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(): Promise<{ status: string; replica?: ReplicaState }> {
    if (this.readiness.isDraining) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The instance is shutting down.');
    const replica = this.replica.replica;
    const replicaAnswers = replica?.check();
    try {
      await this.database.ping();
    } catch {
      await replicaAnswers;
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is not reachable.');
    }
    this.outageLog.available();
    if (!replicaAnswers) return { status: 'ready' };
    return { status: 'ready', replica: (await replicaAnswers) ? 'ready' : 'unreachable, reads on the primary' };
  }
}
