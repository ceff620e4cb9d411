import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';
import { SqlHost } from '../../database/sql-host';
import type { UploadDto } from './dto/upload.dto';
import { detectIconType } from './icon-type';
import { readPackage } from './package-reader';
import { toUploadDto } from './upload.mapper';
import type { UploadKind } from './upload-kind';
import { UploadQuota } from './upload-quota';
import { tooLarge, type ReceivedFile, type StreamedPackage } from './upload-receiver';
import { UploadStorage } from './upload-storage';
import { UploadsRepository, type KeptUpload } from './uploads.repository';
import type { AuditActor } from '../../common/audit/audit-actor';
import { created, type AuditChanges } from '../../common/audit/audit-event';

export interface IconContent {
  contentType: string;
  size: number;
  /** Read from the database as the response takes it. */
  bytes: Readable;
}

@Injectable()
export class UploadsService {
  constructor(
    private readonly txHost: SqlHost,
    private readonly uploads: UploadsRepository,
    private readonly quota: UploadQuota,
    private readonly storage: UploadStorage,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks the file for its kind and keeps it, within the organization's quota. Nothing of a
   * refused upload is kept: the row and the bytes are written in one transaction (for a streamed
   * package, the one it was received in), committed only once every check passed, with the
   * `upload.created` audit event.
   */
  async create(organizationId: string, kind: UploadKind, file: ReceivedFile | undefined, actor: AuditActor): Promise<UploadDto> {
    if (!file) throw AppError.validation('file', 'required', 'file: a part named "file" holding the file is required.');
    if (file.streamed) return this.keepStreamed(organizationId, kind, file, file.streamed, actor);
    const limit = kind === 'package' ? this.config.PACKAGE_UPLOAD_LIMIT_BYTES : this.config.ICON_UPLOAD_LIMIT_BYTES;
    if (file.size > limit) throw tooLarge(kind, limit);
    const bytes = file.buffer!;

    const { contentType, manifest } = kind === 'package' ? { contentType: 'application/zip', manifest: await readPackage(bytes) } : { contentType: iconType(bytes), manifest: null };
    const upload: KeptUpload = { id: randomUUID(), kind, size: file.size, sha256: file.sha256, contentType, manifest, ...this.lifetime() };
    await this.txHost.withSqlTransaction(async () => {
      await this.quota.enforce(organizationId, upload.id, upload.size);
      await this.uploads.insert(organizationId, upload, { actor, at: upload.createdAt }, createdChanges(upload));
      await this.storage.write(upload.id, bytes);
    });
    return toUploadDto(upload);
  }

  /** A package already written (in its open transaction): checked from the database, completed and committed, or rolled back. */
  private async keepStreamed(organizationId: string, kind: UploadKind, file: ReceivedFile, streamed: StreamedPackage, actor: AuditActor): Promise<UploadDto> {
    const { transaction, uploadId } = streamed;
    try {
      // The form's kind chose the streaming; a second `kind` after the file is refused by validation before this.
      if (kind !== 'package') throw new Error(`A streamed upload must be a package, not ${kind}`);
      const reader = streamed.reader();
      const manifest = await readPackage({ reader, size: file.size }).catch((error: unknown) => {
        throw reader.failure ?? error;
      });
      const upload: KeptUpload = { id: uploadId, kind, size: file.size, sha256: file.sha256, contentType: 'application/zip', manifest, ...this.lifetime() };
      await transaction.run(async () => {
        await this.quota.enforce(organizationId, uploadId, upload.size);
        await this.uploads.complete(organizationId, upload, { actor, at: upload.createdAt }, createdChanges(upload));
      });
      await transaction.commit();
      return toUploadDto(upload);
    } finally {
      await transaction.rollBack();
    }
  }

  private lifetime(): { createdAt: Date; expiresAt: Date } {
    const createdAt = this.clock.now();
    return { createdAt, expiresAt: new Date(createdAt.getTime() + this.config.UPLOAD_TTL_SECONDS * 1000) };
  }

  /**
   * An icon's bytes, for the public content route: anyone holding the (unguessable) address may load
   * it, as a browser showing icon_url must. Packages are never served.
   */
  async iconContent(uploadId: string): Promise<IconContent> {
    const upload = await this.uploads.findOfKind(uploadId, 'icon');
    const bytes = upload ? await this.storage.read(uploadId, upload.size) : null;
    if (!upload || !bytes) throw new AppError(ErrorCode.NOT_FOUND, 'No such resource.');
    return { contentType: upload.contentType, size: upload.size, bytes };
  }
}

/** The changes of the `upload.created` audit event: the upload's fields as the answer names them. */
function createdChanges(upload: KeptUpload): AuditChanges {
  const { upload_id: _id, created_at: _createdAt, ...fields } = toUploadDto(upload);
  return created(fields);
}

function iconType(bytes: Buffer): string {
  const type = detectIconType(bytes);
  if (!type) throw AppError.validation('file', 'unsupported_type', 'file: an icon must be a PNG, JPEG, WebP or SVG image.');
  return type.contentType;
}
