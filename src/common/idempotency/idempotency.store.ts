import { Injectable } from '@nestjs/common';
import { SqlHost } from '../../database/sql-host';
import { AppConfig } from '../../config/app-config';
import { Prisma } from '../../generated/prisma/client';
import { Clock } from '../clock';
import { RowLock } from '../../database/locks';
import { withLockWaitLimit } from '../../database/lock-wait';
import { isLockNotAvailable } from '../../database/prisma-errors';

export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  responseBody: string;
}

/**
 * What a claim found: the live stored response; the key, now this transaction's; the key stored
 * by another request after this claim began (read it with `findLive` once this transaction has
 * ended); or the key still held by another request's transaction past the claim's wait.
 */
export type Claim = { kind: 'stored'; response: StoredResponse } | { kind: 'claimed' } | { kind: 'stored-meanwhile' } | { kind: 'in-progress' };

/** The status of a record inserted by a claim until `save` fills it in; never committed as such. */
const CLAIMED_STATUS = 0;

/**
 * Idempotency records in the database. `claim` and `save` run in the caller's transaction
 * (txHost.sql), so that the record commits or rolls back with the write it describes.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly txHost: SqlHost,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * One statement: the live record of the key if there is one (a replay writes and locks nothing,
   * so concurrent replays never queue behind each other); otherwise the key's record is inserted,
   * as a placeholder that `save` completes in the same transaction, replacing an expired record.
   * The unique index (api_key_id, key) makes that insert the claim: a concurrent claim of the same
   * key waits on the uncommitted row until its transaction ends (then finds the stored record, or
   * the key free again after a rollback), but no longer than IDEMPOTENCY_CLAIM_WAIT_MS. A claim
   * that gave up waiting has failed its statement, so the caller must end the transaction.
   */
  async claim(apiKeyId: string, key: string, fingerprint: string): Promise<Claim> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
    let rows: (StoredResponse & { claimed: boolean | null })[];
    try {
      rows = await withLockWaitLimit(this.config.IDEMPOTENCY_CLAIM_WAIT_MS, () =>
        this.txHost.sql.query<StoredResponse & { claimed: boolean | null }>(Prisma.sql`
          WITH live AS (
            SELECT fingerprint, status_code AS "statusCode", response_body AS "responseBody"
            FROM idempotency_records
            WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND expires_at > ${now}),
          claimed AS (
            INSERT INTO idempotency_records (id, api_key_id, key, fingerprint, status_code, response_body, created_at, expires_at)
            SELECT gen_random_uuid(), ${apiKeyId}::uuid, ${key}, ${fingerprint}, ${CLAIMED_STATUS}, '', ${now}, ${expiresAt}
            WHERE NOT EXISTS (SELECT 1 FROM live)
            ON CONFLICT (api_key_id, key) DO UPDATE
              SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
                  response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
              WHERE idempotency_records.expires_at <= ${now}
            RETURNING true AS claimed)
          SELECT fingerprint, "statusCode", "responseBody", NULL::boolean AS claimed FROM live
          UNION ALL
          SELECT NULL, NULL, NULL, claimed FROM claimed`),
      );
    } catch (error) {
      if (isLockNotAvailable(error)) return { kind: 'in-progress' };
      throw error;
    }
    const row = rows[0];
    if (!row) return { kind: 'stored-meanwhile' };
    if (row.claimed) return { kind: 'claimed' };
    return { kind: 'stored', response: { fingerprint: row.fingerprint, statusCode: row.statusCode, responseBody: row.responseBody } };
  }

  /** The live record of the key, read without a lock: for a claim that found it stored meanwhile. */
  async findLive(apiKeyId: string, key: string): Promise<StoredResponse | undefined> {
    const rows = await this.txHost.sql.query<StoredResponse>(Prisma.sql`
      SELECT fingerprint, status_code AS "statusCode", response_body AS "responseBody"
      FROM idempotency_records
      WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND expires_at > ${this.clock.now()}`);
    return rows[0];
  }

  /**
   * Completes the record this transaction's claim inserted with the response, in the statement sent
   * with the transaction's COMMIT (SqlHost.executeAtCommit). Only columns no index covers change, so
   * PostgreSQL can update the row in place (a HOT update). The claim holds the row locked, so it is
   * there; should it not be, the statement fails (a division by the zero rows it wrote) and the
   * COMMIT rolls everything back rather than commit a write whose answer was not stored.
   */
  save(apiKeyId: string, key: string, response: Omit<StoredResponse, 'fingerprint'>): void {
    this.txHost.executeAtCommit(Prisma.sql`
      WITH saved AS (
        UPDATE idempotency_records SET status_code = ${response.statusCode}, response_body = ${response.responseBody}
        WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND status_code = ${CLAIMED_STATUS}
        RETURNING 1)
      SELECT 1 / count(*)::int AS saved FROM saved`);
  }

  /**
   * Deletes expired records in batches, skipping rows another transaction has locked, so that
   * several instances purging at once neither wait on nor repeat each other. Returns the count.
   */
  async purgeExpired(batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.txHost.sql.execute(Prisma.sql`
        DELETE FROM idempotency_records WHERE id IN (
          SELECT id FROM idempotency_records WHERE expires_at <= ${this.clock.now()}
          ORDER BY expires_at LIMIT ${batchSize} ${RowLock.forUpdateSkipLocked()})`);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
