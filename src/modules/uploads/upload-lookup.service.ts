import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import type { UploadKind } from './upload-kind';
import { UploadsRepository, type UsableUploadRow } from './uploads.repository';
import { UploadsError } from './uploads.errors';

/**
 * Finds an upload a PATCH names (upload_id, icon_upload_id), in the caller's transaction. Another
 * organization's upload is answered exactly like a missing one.
 */
@Injectable()
export class UploadLookupService {
  constructor(private readonly uploads: UploadsRepository) {}

  /**
   * The upload, locked FOR SHARE until the caller's transaction ends, so that the purge leaves it
   * alone while the PATCH applies it (UploadsRepository.findForShare).
   */
  async findUsable(organizationId: string, uploadId: string, kind: UploadKind, field: string, now: Date): Promise<UsableUploadRow> {
    const upload = await this.uploads.findForShare(organizationId, uploadId);
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
