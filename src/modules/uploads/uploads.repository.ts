import { Injectable } from '@nestjs/common';
import { AuditStatements, type AuditChanges, type AuditContext } from '../../common/audit/audit-event';
import { columns, type RowOf } from '../../database/columns';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Upload } from '../../generated/prisma/client';
import type { PackageContents } from './package-contents';
import type { UploadKind } from './upload-kind';
import { UploadsAudit } from './uploads.audit';

/** An upload as the service keeps it: its row, less the organization and the storage key of releases that kept bytes on disk. */
export type KeptUpload = Pick<Upload, 'id' | 'kind' | 'size' | 'sha256' | 'contentType' | 'createdAt' | 'expiresAt'> & { manifest: PackageContents | null };

const USABLE = columns<Upload>()('id', 'kind', 'manifest', 'expiresAt');
export type UsableUploadRow = RowOf<typeof USABLE>;

const CONTENT = columns<Upload>()('contentType', 'size');
export type UploadContentRow = RowOf<typeof CONTENT>;

/** An upload made by a release that kept bytes on disk, for `cli uploads import`. */
export type DiskUploadRow = Pick<Upload, 'id' | 'size' | 'sha256'> & { storageKey: NonNullable<Upload['storageKey']>; stored: boolean };

/**
 * Expired uploads nothing needs: every package (applying one copies its contents into the suite,
 * so the suite never reads the upload again) and every icon no suite names in icon_upload_id (an
 * icon in use is served for as long as it is used).
 */
const NOT_NEEDED = Prisma.sql`(u.kind = 'package' OR NOT EXISTS (SELECT 1 FROM expert_suites s WHERE s.icon_upload_id = u.id))`;

/** The uploads table (and the organization's quota lock row): every statement of the uploads module but the bytes' (UploadChunksRepository). */
@Injectable()
export class UploadsRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /** Inserts a checked upload with its `upload.created` audit event, in one statement. */
  async insert(organizationId: string, upload: KeptUpload, context: AuditContext, changes: AuditChanges): Promise<void> {
    await this.txHost.sql.query(Prisma.sql`
      WITH changed AS (
        INSERT INTO uploads (id, organization_id, kind, size, sha256, content_type, manifest, created_at, expires_at)
        VALUES (${upload.id}::uuid, ${organizationId}::uuid, ${upload.kind}, ${upload.size}, ${upload.sha256}, ${upload.contentType},
          ${manifestJson(upload.manifest)}::jsonb, ${upload.createdAt}, ${upload.expiresAt})
        RETURNING id),
      ${this.createdEvent(organizationId, upload, context, changes)}
      SELECT id FROM changed`);
  }

  /** The row of a package being received (UploadReceiver), completed by `complete` once the package is checked; no one else sees it before the commit. */
  async insertReceiving(organizationId: string, uploadId: string): Promise<void> {
    await this.txHost.sql.execute(Prisma.sql`
      INSERT INTO uploads (id, organization_id, kind, size, sha256, content_type, created_at, expires_at)
      VALUES (${uploadId}::uuid, ${organizationId}::uuid, 'package', 0, ${'0'.repeat(64)}, 'application/zip', now(), now())`);
  }

  /** Completes the row `insertReceiving` wrote, with the `upload.created` audit event, in one statement. */
  async complete(organizationId: string, upload: KeptUpload, context: AuditContext, changes: AuditChanges): Promise<void> {
    await this.txHost.sql.query(Prisma.sql`
      WITH changed AS (
        UPDATE uploads SET size = ${upload.size}, sha256 = ${upload.sha256}, manifest = ${manifestJson(upload.manifest)}::jsonb,
          created_at = ${upload.createdAt}, expires_at = ${upload.expiresAt}
        WHERE id = ${upload.id}::uuid
        RETURNING id),
      ${this.createdEvent(organizationId, upload, context, changes)}
      SELECT id FROM changed`);
  }

  private createdEvent(organizationId: string, upload: KeptUpload, context: AuditContext, changes: AuditChanges): Prisma.Sql {
    return this.audit.insertFrom(context, Prisma.sql`changed`, { organizationId, action: UploadsAudit.UploadCreated, resourceId: upload.id, changes });
  }

  /** An upload of `kind` by its id alone, of whichever organization (the public icon route). */
  async findOfKind(uploadId: string, kind: UploadKind): Promise<UploadContentRow | undefined> {
    const [row] = await this.txHost.sql.query<UploadContentRow>(Prisma.sql`
      SELECT ${CONTENT.sql} FROM uploads WHERE id = ${uploadId}::uuid AND kind = ${kind}`);
    return row;
  }

  /**
   * The organization's upload, locked FOR SHARE until the caller's transaction ends. That lock is
   * this side of the purge's protocol (deleteExpiredBatch): the purge deletes only rows it could
   * lock FOR UPDATE SKIP LOCKED, so it skips an upload a PATCH is applying, and by its next run the
   * suite's icon_upload_id is committed and keeps the icon. When the purge locked the row first,
   * this waits for it and then finds no row or the row it left alone (the locked row as it is
   * now). Either way no suite points at a deleted icon.
   */
  async findForShare(organizationId: string, uploadId: string): Promise<UsableUploadRow | undefined> {
    const [row] = await this.txHost.sql.query<UsableUploadRow>(Prisma.sql`
      SELECT ${USABLE.sql} FROM uploads WHERE id = ${uploadId}::uuid AND organization_id = ${organizationId}::uuid ${RowLock.forShare}`);
    return row;
  }

  /**
   * The bytes the organization's uploads take, less `exceptUploadId`'s (a streamed package has its
   * row already), read under the organization's quota lock: its row in upload_quota_locks,
   * upserted and so locked until the caller's transaction ends, makes the uploads of one
   * organization pass the quota check one at a time on every instance, and the sum, read by a later
   * statement than the lock, sees every upload committed before. A row of its own rather than the
   * organization's: top-level department creations update that one, and every upload in progress
   * holds it FOR KEY SHARE.
   */
  async storedBytesUnderQuotaLock(organizationId: string, exceptUploadId: string): Promise<number> {
    await this.txHost.sql.execute(Prisma.sql`
      INSERT INTO upload_quota_locks (organization_id) VALUES (${organizationId}::uuid)
      ON CONFLICT (organization_id) DO UPDATE SET organization_id = EXCLUDED.organization_id`);
    const [{ used }] = await this.txHost.sql.query<{ used: string }>(Prisma.sql`
      SELECT COALESCE(SUM(size), 0)::text AS used FROM uploads WHERE organization_id = ${organizationId}::uuid AND id <> ${exceptUploadId}::uuid`);
    return Number(used);
  }

  /**
   * Deletes up to `limit` uploads expired at `now` that nothing needs, in a short transaction of
   * its own (its row and its bytes: upload_chunks go ON DELETE CASCADE); returns how many
   * candidates it locked and how many it deleted.
   *
   * The candidates are locked FOR UPDATE SKIP LOCKED: instances purging at once take disjoint rows
   * and never wait on each other, and an upload a PATCH holds FOR SHARE (findForShare) is skipped
   * until a later run. "Not needed" is then checked again by the DELETE, a later statement than the
   * locking SELECT: in READ COMMITTED it sees everything committed before the locks were taken.
   * Checking it only in the locking statement would not do: that statement's snapshot is older than
   * its locks, so a PATCH that committed an icon_upload_id in between would go unseen. A PATCH that
   * comes after the locks waits for this transaction (see findForShare).
   */
  deleteExpiredBatch(now: Date, limit: number): Promise<{ selected: number; deleted: number }> {
    return this.txHost.withSqlTransaction(async () => {
      const candidates = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
        SELECT u.id FROM uploads u
        WHERE u.expires_at <= ${now} AND ${NOT_NEEDED}
        ORDER BY u.expires_at LIMIT ${limit}
        ${RowLock.forUpdateSkipLocked('u')}`);
      if (candidates.length === 0) return { selected: 0, deleted: 0 };
      const ids = candidates.map(({ id }) => id);
      const deleted = await this.txHost.sql.execute(Prisma.sql`DELETE FROM uploads u WHERE u.id = ANY(${ids}::uuid[]) AND ${NOT_NEEDED}`);
      return { selected: candidates.length, deleted };
    });
  }

  /** For `cli uploads import`: up to `limit` uploads with a storage key, in id order after `afterId`, each with whether its bytes are in the database. */
  listWithStorageKey(afterId: string | undefined, limit: number): Promise<DiskUploadRow[]> {
    const after = afterId === undefined ? Prisma.empty : Prisma.sql`AND u.id > ${afterId}::uuid`;
    return this.txHost.sql.query<DiskUploadRow>(Prisma.sql`
      SELECT u.id, u.storage_key AS "storageKey", u.size, u.sha256, EXISTS (SELECT 1 FROM upload_chunks c WHERE c.upload_id = u.id) AS stored
      FROM uploads u WHERE u.storage_key IS NOT NULL ${after}
      ORDER BY u.id LIMIT ${limit}`);
  }

  /** For `cli uploads import`: locks the upload FOR UPDATE until the caller's transaction ends; undefined when it is gone, else whether its bytes are in the database. */
  async lockForImport(uploadId: string): Promise<{ stored: boolean } | undefined> {
    const [row] = await this.txHost.sql.query<{ stored: boolean }>(Prisma.sql`
      SELECT EXISTS (SELECT 1 FROM upload_chunks c WHERE c.upload_id = u.id) AS stored
      FROM uploads u WHERE u.id = ${uploadId}::uuid ${RowLock.forUpdate}`);
    return row;
  }
}

/** A package's manifest as a jsonb parameter; SQL NULL (not JSON null) for an icon. */
function manifestJson(manifest: PackageContents | null): string | null {
  return manifest === null ? null : JSON.stringify(manifest);
}
