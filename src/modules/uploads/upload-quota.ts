import { Prisma } from '../../generated/prisma/client';
import { AppError } from '../../common/errors/app-error';
import type { SqlQueries } from '../../database/sql-queries';
import { UploadsError } from './uploads.errors';

/**
 * Refuses (413 UPLOAD_QUOTA_EXCEEDED) an upload of `size` bytes that would take the organization's
 * stored uploads past `quotaBytes` (0: no quota). Run in the transaction that keeps the upload, just
 * before it commits: the organization's row in upload_quota_locks, upserted and so locked until that
 * transaction ends, makes the uploads of one organization pass this check one at a time on every
 * instance, and the sum, read by a later statement than the lock, sees every upload committed
 * before. A row of its own rather than the organization's: top-level department creations update
 * that one, and every upload in progress holds it FOR KEY SHARE. `uploadId` is left out of the sum
 * (a streamed package has its row already).
 */
export async function enforceUploadQuota(sql: SqlQueries, organizationId: string, uploadId: string, size: number, quotaBytes: number): Promise<void> {
  if (quotaBytes === 0) return;
  await sql.execute(Prisma.sql`
    INSERT INTO upload_quota_locks (organization_id) VALUES (${organizationId}::uuid)
    ON CONFLICT (organization_id) DO UPDATE SET organization_id = EXCLUDED.organization_id`);
  const [{ used }] = await sql.query<{ used: string }>(Prisma.sql`
    SELECT COALESCE(SUM(size), 0)::text AS used FROM uploads WHERE organization_id = ${organizationId}::uuid AND id <> ${uploadId}::uuid`);
  const stored = Number(used);
  if (stored + size > quotaBytes) {
    throw new AppError(
      UploadsError.UPLOAD_QUOTA_EXCEEDED,
      `file: the organization's uploads may take at most ${quotaBytes} bytes; ${stored} are stored and this file is ${size}. Expired uploads are removed by the purge.`,
    );
  }
}
