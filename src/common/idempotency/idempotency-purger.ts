import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { PeriodicJobs } from '../scheduling/periodic-jobs';
import { IdempotencyStore } from './idempotency.store';

/**
 * Deletes expired idempotency records every IDEMPOTENCY_PURGE_INTERVAL_SECONDS (0: never) in
 * every instance; instances skip each other's rows. An expired record of a key that is used
 * again is replaced at once (IdempotencyStore.save).
 */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly config: AppConfig,
    private readonly jobs: PeriodicJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.every('idempotency-purge', this.config.IDEMPOTENCY_PURGE_INTERVAL_SECONDS, () => this.purge());
  }

  /** Deletes every expired record now; returns how many. */
  async purge(): Promise<number> {
    const deleted = await this.store.purgeExpired();
    if (deleted > 0) this.logger.log(`Purged ${deleted} expired idempotency records`);
    return deleted;
  }
}
