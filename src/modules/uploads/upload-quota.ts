import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { UploadsRepository } from './uploads.repository';
import { UploadsError } from './uploads.errors';

/** The organization's storage quota for uploads (UPLOAD_STORAGE_QUOTA_BYTES). */
@Injectable()
export class UploadQuota {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * Refuses (413 UPLOAD_QUOTA_EXCEEDED) an upload of `size` bytes that would take the organization's
   * stored uploads past the quota (0: no quota). Run in the transaction that keeps the upload, just
   * before it commits: the stored bytes are read under the organization's quota lock, held until
   * that transaction ends (UploadsRepository.storedBytesUnderQuotaLock), so the uploads of one
   * organization pass this check one at a time on every instance. `uploadId` is left out of the sum
   * (a streamed package has its row already).
   */
  async enforce(organizationId: string, uploadId: string, size: number): Promise<void> {
    const quotaBytes = this.config.UPLOAD_STORAGE_QUOTA_BYTES;
    if (quotaBytes === 0) return;
    const stored = await this.uploads.storedBytesUnderQuotaLock(organizationId, uploadId);
    if (stored + size > quotaBytes) {
      throw new AppError(
        UploadsError.UPLOAD_QUOTA_EXCEEDED,
        `file: the organization's uploads may take at most ${quotaBytes} bytes; ${stored} are stored and this file is ${size}. Expired uploads are removed by the purge.`,
      );
    }
  }
}
