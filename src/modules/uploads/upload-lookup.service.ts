import { Prisma } from '../../generated/prisma/client';
import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { AppError } from '../../common/errors/app-error';
import type { Upload } from '../../generated/prisma/client';
import type { UploadKind } from './upload-kind';
import { RowLock } from '../../database/locks';
import { UploadsError } from './uploads.errors';

/**
 * Finds an upload a PATCH names (upload_id, icon_upload_id), in the caller's transaction. Another
 * organization's upload is answered exactly like a missing one.
 */
@Injectable()
export class UploadLookupService {
  constructor(private readonly txHost: TransactionHost) {}

  /**
   * The upload, locked FOR SHARE until the caller's transaction ends. That lock is this side of the
   * purge's protocol (UploadPurger): the purge deletes only rows it could lock FOR UPDATE SKIP LOCKED,
   * so it skips an upload a PATCH is applying, and by its next run the suite's icon_upload_id is
   * committed and keeps the icon. When the purge locked the row first, this waits for it and then
   * finds no row (not found) or the row it left alone. Either way no suite points at a deleted icon.
   */
  async findUsable(organizationId: string, uploadId: string, kind: UploadKind, field: string, now: Date): Promise<Upload> {
    const tx = this.txHost.tx;
    const locked = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      SELECT id FROM uploads WHERE id = ${uploadId}::uuid AND organization_id = ${organizationId}::uuid ${RowLock.forShare}`);
    const upload = locked.length === 0 ? null : await tx.upload.findUnique({ where: { id: uploadId } });
    if (!upload) {
      throw new AppError(UploadsError.UPLOAD_NOT_FOUND, `${field}: no upload with this id exists for the organization.`, {
        field,
        reason: 'not_found',
      });
    }
    if (upload.kind !== kind) {
      throw new AppError(UploadsError.UPLOAD_NOT_USABLE, `${field}: the upload is a ${upload.kind}, not a ${kind}.`, {
        field,
        reason: 'wrong_kind',
      });
    }
    if (upload.expiresAt.getTime() <= now.getTime()) {
      throw new AppError(UploadsError.UPLOAD_NOT_USABLE, `${field}: the upload expired at ${upload.expiresAt.toISOString()}; upload the file again.`, {
        field,
        reason: 'expired',
      });
    }
    return upload;
  }
}
