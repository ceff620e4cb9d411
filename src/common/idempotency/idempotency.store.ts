import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { AppConfig } from '../../config/app-config';
import { Prisma } from '../../generated/prisma/client';
import { Clock } from '../clock';
import { RowLock, tryTransactionAdvisoryLock } from '../../database/locks';

export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  responseBody: string;
}

/** The text whose 64-bit hash names the advisory lock of one (API key, idempotency key) pair. */
export function idempotencyLockName(apiKeyId: string, key: string): string {
  return `idempotency:${apiKeyId}:${key}`;
}

/** What a claim found: the live stored response, or the key's lock (or neither: in flight elsewhere). */
export type Claim = { kind: 'stored'; response: StoredResponse } | { kind: 'claimed' } | { kind: 'in-progress' };

/**
 * Idempotency records in the database. `claim` and `save` run in the caller's transaction
 * (txHost.tx), so that the record commits or rolls back with the write it describes.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly txHost: TransactionHost,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * One statement: the live record of the key if there is one (a replay takes no lock, so
   * concurrent replays never queue behind each other); otherwise the key's transaction-scoped
   * advisory lock, taken without waiting. The lock, not an inserted placeholder row, marks the
   * key as in flight: a concurrent insert of the same key would wait on an uncommitted row
   * instead of answering 409 at once.
   */
  async claim(apiKeyId: string, key: string): Promise<Claim> {
    const rows = await this.txHost.sql.query<StoredResponse & { locked: boolean | null }>(Prisma.sql`
      WITH live AS (
        SELECT fingerprint, status_code AS "statusCode", response_body AS "responseBody"
        FROM idempotency_records
        WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND expires_at > ${this.clock.now()})
      SELECT fingerprint, "statusCode", "responseBody", NULL::boolean AS locked FROM live
      UNION ALL
      SELECT NULL, NULL, NULL, ${tryTransactionAdvisoryLock(idempotencyLockName(apiKeyId, key))}
      WHERE NOT EXISTS (SELECT 1 FROM live)`);
    const row = rows[0];
    if (row.locked === null) return { kind: 'stored', response: { fingerprint: row.fingerprint, statusCode: row.statusCode, responseBody: row.responseBody } };
    return row.locked ? { kind: 'claimed' } : { kind: 'in-progress' };
  }

  /**
   * The live record of the key, read without a lock: for the rare request that claimed the key
   * just as another one committed its record (see `save`).
   */
  async findLive(apiKeyId: string, key: string): Promise<StoredResponse | undefined> {
    const rows = await this.txHost.sql.query<StoredResponse>(Prisma.sql`
      SELECT fingerprint, status_code AS "statusCode", response_body AS "responseBody"
      FROM idempotency_records
      WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND expires_at > ${this.clock.now()}`);
    return rows[0];
  }

  /**
   * Stores the response of a claimed key, replacing an expired record of the same key. False when
   * a live record is already there: another request committed it between this one's claim
   * statement taking its snapshot and taking the lock, so this request's write must be undone.
   */
  async save(apiKeyId: string, key: string, response: StoredResponse): Promise<boolean> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
    const written = await this.txHost.sql.execute(Prisma.sql`
      INSERT INTO idempotency_records (id, api_key_id, key, fingerprint, status_code, response_body, created_at, expires_at)
      VALUES (gen_random_uuid(), ${apiKeyId}::uuid, ${key}, ${response.fingerprint}, ${response.statusCode}, ${response.responseBody}, ${now}, ${expiresAt})
      ON CONFLICT (api_key_id, key) DO UPDATE
        SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code,
            response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency_records.expires_at <= ${now}`);
    return written === 1;
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
