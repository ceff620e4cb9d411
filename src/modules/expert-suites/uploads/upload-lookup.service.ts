import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';
import { AppError } from '../../../common/errors/app-error';
import { ErrorCode } from '../../../common/errors/error-code';
import type { Upload } from '../../../generated/prisma/client';
import type { UploadKind } from './upload-kind';

/**
 * Finds an upload a PATCH names (upload_id, icon_upload_id), in the caller's transaction. Another
 * organization's upload is answered exactly like a missing one.
 */
@Injectable()
export class UploadLookupService {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterPrisma>) {}

  async findUsable(organizationId: string, uploadId: string, kind: UploadKind, field: string, now: Date): Promise<Upload> {
    const upload = await this.txHost.tx.upload.findFirst({ where: { id: uploadId, organizationId } });
    if (!upload) {
      throw new AppError(ErrorCode.UPLOAD_NOT_FOUND, `${field}: no upload with this id exists for the organization.`, {
        field,
        reason: 'not_found',
      });
    }
    if (upload.kind !== kind) {
      throw new AppError(ErrorCode.UPLOAD_NOT_USABLE, `${field}: the upload is a ${upload.kind}, not a ${kind}.`, {
        field,
        reason: 'wrong_kind',
      });
    }
    if (upload.expiresAt.getTime() <= now.getTime()) {
      throw new AppError(ErrorCode.UPLOAD_NOT_USABLE, `${field}: the upload expired at ${upload.expiresAt.toISOString()}; upload the file again.`, {
        field,
        reason: 'expired',
      });
    }
    return upload;
  }
}
