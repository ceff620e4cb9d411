import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Prisma } from '../../generated/prisma/client';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';
import type { UploadDto } from './dto/upload.dto';
import { detectIconType } from './icon-type';
import type { PackageContents } from './package-contents';
import { readPackage } from './package-reader';
import type { UploadKind } from './upload-kind';
import { enforceUploadQuota } from './upload-quota';
import { tooLarge, type ReceivedFile, type StreamedPackage } from './upload-receiver';
import { UploadStorage } from './upload-storage';
import type { AuditActor } from '../../common/audit/audit-actor';
import { AuditStatements, created } from '../../common/audit/audit-event';
import { UploadsAudit } from './uploads.audit';

export interface IconContent {
  contentType: string;
  size: number;
  /** Read from the database as the response takes it. */
  bytes: Readable;
}

/** What an upload row says, as the answer needs it. */
interface StoredUpload {
  id: string;
  kind: string;
  size: number;
  sha256: string;
  contentType: string;
  manifest: PackageContents | null;
  createdAt: Date;
  expiresAt: Date;
}

@Injectable()
export class UploadsService {
  constructor(
    private readonly txHost: TransactionHost,
    private readonly storage: UploadStorage,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditStatements,
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
    const upload: StoredUpload = { id: randomUUID(), kind, size: file.size, sha256: file.sha256, contentType, manifest, ...this.lifetime() };
    await this.txHost.withTransaction(async () => {
      await enforceUploadQuota(this.txHost.sql, organizationId, upload.id, upload.size, this.config.UPLOAD_STORAGE_QUOTA_BYTES);
      await this.txHost.tx.upload.create({
        data: { ...upload, organizationId, manifest: (manifest ?? undefined) as Prisma.InputJsonValue | undefined },
      });
      await this.storage.write(upload.id, bytes);
      await this.txHost.sql.execute(this.uploadCreatedEvent(organizationId, upload, actor));
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
      const upload: StoredUpload = { id: uploadId, kind, size: file.size, sha256: file.sha256, contentType: 'application/zip', manifest, ...this.lifetime() };
      await enforceUploadQuota(transaction.sql, organizationId, uploadId, upload.size, this.config.UPLOAD_STORAGE_QUOTA_BYTES);
      await transaction.sql.execute(Prisma.sql`
        UPDATE uploads SET size = ${upload.size}, sha256 = ${upload.sha256}, manifest = ${JSON.stringify(manifest)}::jsonb,
          created_at = ${upload.createdAt}, expires_at = ${upload.expiresAt}
        WHERE id = ${uploadId}::uuid`);
      await transaction.sql.execute(this.uploadCreatedEvent(organizationId, upload, actor));
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

  private uploadCreatedEvent(organizationId: string, upload: StoredUpload, actor: AuditActor) {
    const { upload_id: _id, created_at: _createdAt, ...fields } = toUploadDto(upload);
    return this.audit.insert({ actor, at: upload.createdAt }, { organizationId, action: UploadsAudit.UploadCreated, resourceId: upload.id, changes: created(fields) });
  }

  /**
   * An icon's bytes, for the public content route: anyone holding the (unguessable) address may load
   * it, as a browser showing icon_url must. Packages are never served.
   */
  async iconContent(uploadId: string): Promise<IconContent> {
    const upload = await this.txHost.tx.upload.findFirst({ where: { id: uploadId, kind: 'icon' }, select: { contentType: true, size: true } });
    const bytes = upload ? await this.storage.read(uploadId, upload.size) : null;
    if (!upload || !bytes) throw new AppError(ErrorCode.NOT_FOUND, 'No such resource.');
    return { contentType: upload.contentType, size: upload.size, bytes };
  }
}

function iconType(bytes: Buffer): string {
  const type = detectIconType(bytes);
  if (!type) throw AppError.validation('file', 'unsupported_type', 'file: an icon must be a PNG, JPEG, WebP or SVG image.');
  return type.contentType;
}

function toUploadDto(upload: StoredUpload): UploadDto {
  const contents = upload.manifest;
  return {
    upload_id: upload.id,
    kind: upload.kind,
    size: upload.size,
    sha256: upload.sha256,
    content_type: upload.contentType,
    package: contents
      ? {
          name: contents.name,
          version: contents.version,
          command_count: contents.commands.length,
          skill_count: contents.skills.length,
          connector_count: contents.connectors.length,
        }
      : null,
    created_at: upload.createdAt.toISOString(),
    expires_at: upload.expiresAt.toISOString(),
  };
}
