import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PeriodicJobs } from '../../common/scheduling/periodic-jobs';
import { AppConfig } from '../../config/app-config';
import { UploadsRepository } from './uploads.repository';

const BATCH_SIZE = 500;

/**
 * Removes expired uploads nothing needs (UploadsRepository.deleteExpiredBatch), every
 * UPLOAD_PURGE_INTERVAL_SECONDS (0: never) in every instance, in a short transaction per batch.
 * Deleting the row deletes its bytes (upload_chunks, ON DELETE CASCADE) in the same transaction, so
 * no bytes are ever left without their row.
 */
@Injectable()
export class UploadPurger implements OnApplicationBootstrap {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly jobs: PeriodicJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.every('upload-purge', this.config.UPLOAD_PURGE_INTERVAL_SECONDS, () => this.purge());
  }

  /** Removes every upload that is expired and not needed now, `batchSize` at a time; returns how many. */
  async purge(batchSize = BATCH_SIZE): Promise<number> {
    const now = this.clock.now();
    let removed = 0;
    for (;;) {
      const { selected, deleted } = await this.uploads.deleteExpiredBatch(now, batchSize);
      removed += deleted;
      if (selected < batchSize) break;
    }
    if (removed > 0) this.logger.log(`Purged ${removed} expired uploads`);
    return removed;
  }
}
