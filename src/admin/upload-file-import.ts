import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AuditStatements } from '../common/audit/audit-event';
import type { SqlHost } from '../database/sql-host';
import { DatabaseUploadStorage } from '../modules/uploads/database-upload-storage';
import type { UploadStorage } from '../modules/uploads/upload-storage';
import { UploadsRepository, type DiskUploadRow } from '../modules/uploads/uploads.repository';
import { AdminError } from './admin-error';

/** How releases that kept uploads on disk named an upload's file under UPLOAD_DIR (uploads.storage_key). */
const STORAGE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;
const BATCH_SIZE = 100;

export type SkipReason = 'size_mismatch' | 'sha256_mismatch' | 'removed' | 'not_a_storage_key';

/** What `uploads import` did, upload by upload (storage keys are `<organization id>/<upload id>`). */
export interface UploadImportReport {
  /** Uploads whose file this run copied into the database. */
  moved: number;
  /** Uploads whose bytes were in the database already (an earlier run). */
  already_stored: number;
  /** Storage keys of uploads without bytes whose file is not in the directory. */
  missing: string[];
  /** Files left where they are, and why: not the bytes the upload recorded, or the upload was removed meanwhile. */
  skipped: Array<{ storage_key: string; reason: SkipReason }>;
}

/**
 * Copies the files of uploads made by releases that kept them on disk (one file per upload at
 * `<directory>/<storage_key>`) into the database. Goes by the uploads rows, not the files: a file
 * no upload names is left alone. Each file is checked against the size and sha256 its upload
 * recorded, and stored in its own transaction with the upload row locked, so that running it again,
 * or beside a purge, or twice at once, does no harm. The files are not deleted.
 */
export class UploadFileImport {
  private readonly uploads: UploadsRepository;
  private readonly storage: UploadStorage;

  constructor(
    private readonly txHost: SqlHost,
    audit: AuditStatements,
  ) {
    this.uploads = new UploadsRepository(txHost, audit);
    this.storage = new DatabaseUploadStorage(txHost);
  }

  async importFrom(directory: string): Promise<UploadImportReport> {
    const root = resolve(directory);
    const isDirectory = await stat(root).then((stats) => stats.isDirectory(), () => false);
    if (!isDirectory) throw new AdminError(`--from: ${root} is not a directory (give the UPLOAD_DIR of the release that kept uploads on disk).`);
    const report: UploadImportReport = { moved: 0, already_stored: 0, missing: [], skipped: [] };
    let after: string | undefined;
    for (;;) {
      const batch = await this.uploads.listWithStorageKey(after, BATCH_SIZE);
      for (const upload of batch) await this.importOne(root, upload, report);
      if (batch.length < BATCH_SIZE) return report;
      after = batch[batch.length - 1].id;
    }
  }

  private async importOne(root: string, upload: DiskUploadRow, report: UploadImportReport): Promise<void> {
    const key = upload.storageKey;
    if (upload.stored) {
      report.already_stored++;
      return;
    }
    // The key comes from the database, and still must not name a path outside the directory.
    if (!STORAGE_KEY.test(key)) return void report.skipped.push({ storage_key: key, reason: 'not_a_storage_key' });
    const bytes = await readFile(join(root, key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!bytes) return void report.missing.push(key);
    if (bytes.length !== upload.size) return void report.skipped.push({ storage_key: key, reason: 'size_mismatch' });
    if (createHash('sha256').update(bytes).digest('hex') !== upload.sha256) return void report.skipped.push({ storage_key: key, reason: 'sha256_mismatch' });

    const outcome = await this.txHost.withSqlTransaction(async () => {
      const locked = await this.uploads.lockForImport(upload.id);
      if (!locked) return 'removed';
      if (locked.stored) return 'already_stored';
      await this.storage.write(upload.id, bytes);
      return 'moved';
    });
    if (outcome === 'removed') report.skipped.push({ storage_key: key, reason: 'removed' });
    else if (outcome === 'already_stored') report.already_stored++;
    else report.moved++;
  }
}
