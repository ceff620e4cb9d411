import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { uuidV7Floor } from '../../common/ids/uuid-v7';
import { PeriodicJobs } from '../../common/scheduling/periodic-jobs';
import { AppConfig } from '../../config/app-config';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';

const BATCH_SIZE = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes audit events older than AUDIT_RETENTION_DAYS, every AUDIT_PURGE_INTERVAL_SECONDS (0:
 * never) in every instance. An event id is a UUID v7, so "older than" is an id range, read
 * organization by organization on the primary key (organization_id, id); each batch is one
 * statement of its own, and its rows are locked SKIP LOCKED, so instances purging at once delete
 * disjoint batches without waiting. Organizations are never deleted, so every event is reached.
 */
@Injectable()
export class AuditPurger implements OnApplicationBootstrap {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly txHost: SqlHost,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly jobs: PeriodicJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.every('audit-purge', this.config.AUDIT_PURGE_INTERVAL_SECONDS, () => this.purge());
  }

  /** Deletes every event past the retention now, `batchSize` at a time; returns how many. */
  async purge(batchSize = BATCH_SIZE): Promise<number> {
    const floor = uuidV7Floor(new Date(this.clock.now().getTime() - this.config.AUDIT_RETENTION_DAYS * DAY_MS));
    let removed = 0;
    for (;;) {
      const deleted = await this.txHost.sql.execute(Prisma.sql`
        DELETE FROM audit_events AS a USING (
          SELECT old.organization_id, old.id FROM organizations AS o CROSS JOIN LATERAL (
            SELECT organization_id, id FROM audit_events
            WHERE organization_id = o.id AND id < ${floor}::uuid ORDER BY id LIMIT ${batchSize} ${RowLock.forUpdateSkipLocked()}) AS old
          LIMIT ${batchSize}) AS batch
        WHERE a.organization_id = batch.organization_id AND a.id = batch.id`);
      removed += deleted;
      if (deleted < batchSize) break;
    }
    if (removed > 0) this.logger.log(`Purged ${removed} audit events older than ${this.config.AUDIT_RETENTION_DAYS} days`);
    return removed;
  }
}
