import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';
import type { Prisma, Upload } from '../../generated/prisma/client';
import type { UploadDto } from './dto/upload.dto';
import { detectIconType } from './icon-type';
import type { PackageContents } from './package-contents';
import { readPackage } from './package-reader';
import type { UploadKind } from './upload-kind';
import { UploadStorage } from './upload-storage';

/** The bytes multer received for the `file` part. */
export interface ReceivedFile {
  buffer: Buffer;
  size: number;
}

export interface IconContent {
  contentType: string;
  size: number;
  /** Read from the database as the response takes it. */
  bytes: Readable;
}

@Injectable()
export class UploadsService {
  constructor(
    private readonly txHost: TransactionHost,
    private readonly storage: UploadStorage,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks the file for its kind and keeps it. Everything is checked before anything is stored, so
   * a refused upload leaves nothing behind; the row and the bytes are written in one transaction, so
   * an upload is never kept half-written.
   */
  async create(organizationId: string, kind: UploadKind, file: ReceivedFile | undefined): Promise<UploadDto> {
    if (!file) throw AppError.validation('file', 'required', 'file: a part named "file" holding the file is required.');
    const limit = kind === 'package' ? this.config.PACKAGE_UPLOAD_LIMIT_BYTES : this.config.ICON_UPLOAD_LIMIT_BYTES;
    if (file.size > limit) throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `file: a ${kind} may be at most ${limit} bytes.`);

    const { contentType, manifest } = await this.inspect(kind, file.buffer);
    const now = this.clock.now();
    const upload = await this.txHost.withTransaction(async () => {
      const created = await this.txHost.tx.upload.create({
        data: {
          id: randomUUID(),
          organizationId,
          kind,
          size: file.size,
          sha256: createHash('sha256').update(file.buffer).digest('hex'),
          contentType,
          manifest: (manifest ?? undefined) as Prisma.InputJsonValue | undefined,
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.config.UPLOAD_TTL_SECONDS * 1000),
        },
      });
      await this.storage.write(created.id, file.buffer);
      return created;
    });
    return toUploadDto(upload);
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

  private async inspect(kind: UploadKind, bytes: Buffer): Promise<{ contentType: string; manifest: PackageContents | null }> {
    if (kind === 'package') return { contentType: 'application/zip', manifest: await readPackage(bytes) };
    const type = detectIconType(bytes);
    if (!type) throw AppError.validation('file', 'unsupported_type', 'file: an icon must be a PNG, JPEG, WebP or SVG image.');
    return { contentType: type.contentType, manifest: null };
  }
}

function toUploadDto(upload: Upload): UploadDto {
  const contents = upload.manifest as unknown as PackageContents | null;
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
