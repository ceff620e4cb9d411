import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { IdempotencyStore } from './idempotency.store';

/**
 * Deletes expired idempotency records every IDEMPOTENCY_PURGE_INTERVAL_SECONDS (0: never) in
 * every instance; instances skip each other's rows. An expired record of a key that is used
 * again is also deleted at once, by the lookup (IdempotencyStore.findLive).
 */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.IDEMPOTENCY_PURGE_INTERVAL_SECONDS;
    if (seconds === 0) return;
    this.timer = setInterval(() => void this.purge(), seconds * 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      const deleted = await this.store.purgeExpired();
      if (deleted > 0) this.logger.log(`Purged ${deleted} expired idempotency records`);
      return deleted;
    } catch (error) {
      this.logger.warn(`Purging expired idempotency records failed: ${(error as Error).message}`);
      return 0;
    }
  }
}
