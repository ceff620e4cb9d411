import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../database/prisma.service';

export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  responseBody: string;
}

/** The text whose 64-bit hash names the advisory lock of one (API key, idempotency key) pair. */
export function idempotencyLockName(apiKeyId: string, key: string): string {
  return `idempotency:${apiKeyId}:${key}`;
}

/**
 * Idempotency records in the database. Every method except purgeExpired runs in the caller's
 * transaction (txHost.tx), so that the record commits or rolls back with the write it describes.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterPrisma>,
    private readonly prisma: PrismaService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Takes the key's transaction-scoped advisory lock without waiting; false when another
   * transaction (in any instance sharing the database) holds it. Released at commit or rollback.
   */
  async tryLock(apiKeyId: string, key: string): Promise<boolean> {
    const rows = await this.txHost.tx.$queryRaw<Array<{ locked: boolean }>>`
      SELECT pg_try_advisory_xact_lock(hashtextextended(${idempotencyLockName(apiKeyId, key)}, 0)) AS locked`;
    return rows[0]?.locked === true;
  }

  /** The live record of the key; an expired one is deleted here so that the key can be used anew. */
  async findLive(apiKeyId: string, key: string): Promise<StoredResponse | undefined> {
    const record = await this.txHost.tx.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId, key } } });
    if (!record) return undefined;
    if (record.expiresAt.getTime() <= Date.now()) {
      await this.txHost.tx.idempotencyRecord.delete({ where: { id: record.id } });
      return undefined;
    }
    return record;
  }

  async save(apiKeyId: string, key: string, response: StoredResponse): Promise<void> {
    const expiresAt = new Date(Date.now() + this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
    await this.txHost.tx.idempotencyRecord.create({ data: { apiKeyId, key, ...response, expiresAt } });
  }

  /**
   * Deletes expired records in batches, skipping rows another transaction has locked, so that
   * several instances purging at once neither wait on nor repeat each other. Returns the count.
   */
  async purgeExpired(batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.prisma.$executeRaw`
        DELETE FROM idempotency_records WHERE id IN (
          SELECT id FROM idempotency_records WHERE expires_at <= ${new Date()}
          ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`;
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
