import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { createHash, randomUUID } from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import type { AuthenticatedRequest } from '../../common/auth/principal';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';
import { DatabasePool } from '../../database/database-pool';
import { SqlHost } from '../../database/sql-host';
import { ChunkRangeReader } from './chunk-range-reader';
import { UPLOAD_CHUNK_BYTES } from './database-upload-storage';
import { HeldTransaction } from './held-transaction';
import { UploadChunksRepository } from './upload-chunks.repository';
import { uploadTicketOf } from './upload-admission.interceptor';
import type { UploadTicket } from './upload-admission';
import { UPLOAD_KINDS, type UploadKind } from './upload-kind';
import { largestUploadBytes } from './multipart-errors.interceptor';
import { UploadsRepository } from './uploads.repository';

/** A package whose bytes are written, in a transaction still open, under a row not yet complete. */
export interface StreamedPackage {
  uploadId: string;
  transaction: HeldTransaction;
  /** Reads the bytes back from that transaction, for the package check. */
  reader(): ChunkRangeReader;
}

/** The `file` part as received: in memory (`buffer`) or streamed into the database (`streamed`). */
export interface ReceivedFile {
  size: number;
  sha256: string;
  buffer?: Buffer;
  streamed?: StreamedPackage;
}

type MulterFile = Parameters<StorageEngine['_handleFile']>[1];

/**
 * multer's storage for the `file` part (docs/uploads.md). A package on PostgreSQL, whose `kind`
 * came before the file in the form, is streamed into the database as it arrives: a transaction is
 * opened, the row inserted (completed later by the service), and each 64 KiB piece written, hashed
 * and counted, so that the instance holds one piece of it at a time; the service checks the zip by
 * reading it back in that transaction and commits or rolls back. Everything else (icons, a file
 * before its kind, packages past the streaming places, all uploads on the embedded database, which
 * has one connection a long transaction would hold from every other request, and whose data lives
 * in this process anyway) is held in memory, up to its kind's limit, counted against the
 * instance's buffer limit.
 */
@Injectable()
export class UploadReceiver implements StorageEngine {
  private streaming = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly txHost: SqlHost,
    private readonly pool: DatabasePool,
    private readonly uploads: UploadsRepository,
    private readonly chunks: UploadChunksRepository,
  ) {}

  _handleFile(request: Request, file: MulterFile, callback: (error?: unknown, info?: Partial<ReceivedFile>) => void): void {
    this.receive(request, file.stream).then(
      (received) => callback(null, received),
      (error: unknown) => callback(error),
    );
  }

  _removeFile(_request: Request, file: MulterFile & Partial<ReceivedFile>, callback: (error: Error | null) => void): void {
    if (!file.streamed) return callback(null);
    void file.streamed.transaction.rollBack().then(() => callback(null));
  }

  private receive(request: Request, stream: Readable): Promise<ReceivedFile> {
    const kind = formKind(request);
    const ticket = uploadTicketOf(request);
    if (kind === 'package' && this.takeStreamingPlace(request)) return this.stream(request, stream);
    return this.hold(request, stream, ticket, kind);
  }

  /**
   * A streamed package holds a pooled connection for as long as its body takes to arrive: at most
   * half the pool does at once, so that uploads never take the connections every other request
   * needs; a package past that is held in memory, within the buffer limit. No pool (the embedded
   * database's one connection): none is streamed. The place is given back when the request ends.
   */
  private takeStreamingPlace(request: Request): boolean {
    if (this.pool.poolUsage() === undefined) return false;
    if (this.streaming >= Math.max(1, Math.floor(this.config.DATABASE_POOL_SIZE / 2))) return false;
    this.streaming++;
    finished(request.res!, () => this.streaming--);
    return true;
  }

  private async hold(request: Request, stream: Readable, ticket: UploadTicket, kind: UploadKind | undefined): Promise<ReceivedFile> {
    const limit = kind ? this.limitOf(kind) : largestUploadBytes(this.config);
    // The body's declared length bounds the file's: one buffer that large (at most the limit) is
    // counted, before anything is read, and filled as the file arrives. Without one (chunked), the
    // pieces are kept and joined at the end, which holds the file twice for a moment.
    const declared = Number(request.headers['content-length']);
    const capacity = Number.isSafeInteger(declared) ? Math.min(declared, limit) : undefined;
    let whole: Buffer | undefined;
    if (capacity !== undefined) {
      ticket.hold(capacity);
      whole = Buffer.allocUnsafe(capacity);
    }
    const pieces: Buffer[] = [];
    const hash = createHash('sha256');
    let size = 0;
    let failure: unknown;
    // After a failure the rest of the part is read and dropped: multer reads the body to its end
    // before it answers, and a destroyed part would make it answer with the stream's error instead.
    for await (const piece of stream as AsyncIterable<Buffer>) {
      size += piece.length;
      if (failure) continue;
      try {
        if (size > limit) throw tooLarge(kind!, limit);
        hash.update(piece);
        if (whole) {
          piece.copy(whole, size - piece.length);
        } else {
          ticket.hold(piece.length);
          pieces.push(piece);
        }
      } catch (error) {
        failure = error;
        pieces.length = 0;
        whole = undefined;
      }
    }
    if (failure) throw failure;
    if (!whole) {
      ticket.hold(size);
      whole = Buffer.concat(pieces, size);
    }
    return { size, sha256: hash.digest('hex'), buffer: whole.subarray(0, size) };
  }

  /**
   * Holds at most one piece and what arrived with it (well under 2 pieces), which the buffer limit
   * does not count: the streaming places bound it.
   */
  private async stream(request: Request, stream: Readable): Promise<ReceivedFile> {
    const { organizationId } = (request as AuthenticatedRequest).principal!;
    const uploadId = randomUUID();
    const limit = this.limitOf('package');
    const transaction = await HeldTransaction.begin(this.txHost);
    // Whatever path the request takes from here, its end ends the transaction; the service commits before answering.
    finished(request.res!, () => void transaction.rollBack());
    const hash = createHash('sha256');
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let ordinal = 0;
    let size = 0;
    let failure: unknown;
    const writePiece = (piece: Buffer) => {
      const at = ordinal++;
      return transaction.run(() => this.chunks.insert(uploadId, at, piece));
    };
    try {
      // Completed by the service once the package is checked; no one else sees it before the commit.
      await transaction.run(() => this.uploads.insertReceiving(organizationId, uploadId));
      for await (const piece of stream as AsyncIterable<Buffer>) {
        size += piece.length;
        if (failure) continue;
        try {
          if (size > limit) throw tooLarge('package', limit);
          hash.update(piece);
          pending.push(piece);
          pendingBytes += piece.length;
          if (pendingBytes >= UPLOAD_CHUNK_BYTES) {
            const joined = Buffer.concat(pending, pendingBytes);
            let offset = 0;
            for (; joined.length - offset >= UPLOAD_CHUNK_BYTES; offset += UPLOAD_CHUNK_BYTES) await writePiece(joined.subarray(offset, offset + UPLOAD_CHUNK_BYTES));
            pending = offset < joined.length ? [joined.subarray(offset)] : [];
            pendingBytes = joined.length - offset;
          }
        } catch (error) {
          failure = error;
          pending = [];
        }
      }
      if (failure) throw failure;
      if (pendingBytes > 0) await writePiece(Buffer.concat(pending, pendingBytes));
    } catch (error) {
      await transaction.rollBack();
      throw error;
    }
    return {
      size,
      sha256: hash.digest('hex'),
      streamed: { uploadId, transaction, reader: () => new ChunkRangeReader(uploadId, (ordinal) => transaction.run(() => this.chunks.find(uploadId, ordinal))) },
    };
  }

  private limitOf(kind: UploadKind): number {
    return kind === 'package' ? this.config.PACKAGE_UPLOAD_LIMIT_BYTES : this.config.ICON_UPLOAD_LIMIT_BYTES;
  }
}

/** The form's `kind`, when it came before the file and is one. */
function formKind(request: Request): UploadKind | undefined {
  const kind = (request.body as Record<string, unknown> | undefined)?.kind;
  return UPLOAD_KINDS.find((known) => known === kind);
}

export function tooLarge(kind: UploadKind, limit: number): AppError {
  return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `file: a ${kind} may be at most ${limit} bytes.`);
}
