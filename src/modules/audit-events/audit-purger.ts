import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PeriodicJobs } from '../../common/scheduling/periodic-jobs';
import { AppConfig } from '../../config/app-config';
import { AuditEventsRepository } from './audit-events.repository';

const BATCH_SIZE = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes audit events older than AUDIT_RETENTION_DAYS, every AUDIT_PURGE_INTERVAL_SECONDS (0:
 * never) in every instance, a batch at a time (AuditEventsRepository.deleteBatchOlderThan: batches
 * of instances purging at once are disjoint).
 */
@Injectable()
export class AuditPurger implements OnApplicationBootstrap {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly auditEvents: AuditEventsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly jobs: PeriodicJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.every('audit-purge', this.config.AUDIT_PURGE_INTERVAL_SECONDS, () => this.purge());
  }

  /** Deletes every event past the retention now, `batchSize` at a time; returns how many. */
  async purge(batchSize = BATCH_SIZE): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.config.AUDIT_RETENTION_DAYS * DAY_MS);
    let removed = 0;
    for (;;) {
      const deleted = await this.auditEvents.deleteBatchOlderThan(before, batchSize);
      removed += deleted;
      if (deleted < batchSize) break;
    }
    if (removed > 0) this.logger.log(`Purged ${removed} audit events older than ${this.config.AUDIT_RETENTION_DAYS} days`);
    return removed;
  }
}
