import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PeriodicJobs } from '../../common/scheduling/periodic-jobs';
import { AppConfig } from '../../config/app-config';
import { TransactionHost } from '../../database/transaction-host';
import { Prisma } from '../../generated/prisma/client';
import { RowLock } from '../../database/locks';

const BATCH_SIZE = 500;

/**
 * Expired uploads nothing needs: every package (applying one copies its contents into the suite,
 * so the suite never reads the upload again) and every icon no suite names in icon_upload_id (an
 * icon in use is served for as long as it is used).
 */
const NOT_NEEDED = Prisma.sql`(u.kind = 'package' OR NOT EXISTS (SELECT 1 FROM expert_suites s WHERE s.icon_upload_id = u.id))`;

/**
 * Removes expired uploads nothing needs, every UPLOAD_PURGE_INTERVAL_SECONDS (0: never) in every
 * instance, in a short transaction per batch. Deleting the row deletes its bytes (upload_chunks,
 * ON DELETE CASCADE) in the same transaction, so no bytes are ever left without their row.
 */
@Injectable()
export class UploadPurger implements OnApplicationBootstrap {
  private readonly logger = new Logger('Uploads');

  constructor(
    private readonly txHost: TransactionHost,
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
      const { selected, deleted } = await this.deleteBatch(now, batchSize);
      removed += deleted;
      if (selected < batchSize) break;
    }
    if (removed > 0) this.logger.log(`Purged ${removed} expired uploads`);
    return removed;
  }

  /**
   * Deletes one batch of uploads; returns how many candidates it locked and how many it deleted.
   *
   * The candidates are locked FOR UPDATE SKIP LOCKED: instances purging at once take disjoint rows
   * and never wait on each other, and an upload a PATCH holds FOR SHARE (UploadLookupService) is
   * skipped until a later run. "Not needed" is then checked again by the DELETE, a later statement
   * than the locking SELECT: in READ COMMITTED it sees everything committed before the locks were
   * taken. Checking it only in the locking statement would not do: that statement's snapshot is
   * older than its locks, so a PATCH that committed an icon_upload_id in between would go unseen.
   * A PATCH that comes after the locks waits for this transaction (see findUsable).
   */
  private deleteBatch(now: Date, batchSize: number): Promise<{ selected: number; deleted: number }> {
    return this.txHost.withSqlTransaction(async () => {
      const candidates = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
        SELECT u.id FROM uploads u
        WHERE u.expires_at <= ${now} AND ${NOT_NEEDED}
        ORDER BY u.expires_at LIMIT ${batchSize}
        ${RowLock.forUpdateSkipLocked('u')}`);
      if (candidates.length === 0) return { selected: 0, deleted: 0 };
      const ids = candidates.map(({ id }) => id);
      const deleted = await this.txHost.sql.execute(Prisma.sql`DELETE FROM uploads u WHERE u.id = ANY(${ids}::uuid[]) AND ${NOT_NEEDED}`);
      return { selected: candidates.length, deleted };
    });
  }
}
