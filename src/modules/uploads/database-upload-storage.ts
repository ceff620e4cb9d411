import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { SqlHost } from '../../database/sql-host';
import { UploadChunksRepository } from './upload-chunks.repository';
import { UploadStorage } from './upload-storage';

/**
 * The size of the pieces an upload's bytes are stored in (the last one may be shorter). Small
 * enough that a piece's base64 text (88 KB) stays below V8's large-object size and dies young:
 * with 256 KiB pieces a burst of 20 MiB uploads left the service's peak memory 190 MB higher than
 * writing files did, with 64 KiB pieces 100-125 MB (docs/uploads.md).
 */
export const UPLOAD_CHUNK_BYTES = 64 * 1024;

/**
 * Keeps the bytes of uploads in the database (upload_chunks), in pieces of UPLOAD_CHUNK_BYTES,
 * so that they are written and read a piece at a time: neither side ever holds one statement or
 * one result with a whole package, and a response being served holds a few pieces at most.
 */
@Injectable()
export class DatabaseUploadStorage extends UploadStorage {
  constructor(
    private readonly txHost: SqlHost,
    // Built here when the storage is made by hand (the CLI's upload import).
    private readonly chunks: UploadChunksRepository = new UploadChunksRepository(txHost),
  ) {
    super();
  }

  write(uploadId: string, bytes: Buffer): Promise<void> {
    return this.txHost.withSqlTransaction(async () => {
      // One chunk per statement: eight per statement wrote 40 % faster but doubled the peak memory.
      for (let ordinal = 0; ordinal * UPLOAD_CHUNK_BYTES < bytes.length; ordinal++) {
        await this.chunks.insert(uploadId, ordinal, bytes.subarray(ordinal * UPLOAD_CHUNK_BYTES, (ordinal + 1) * UPLOAD_CHUNK_BYTES));
      }
    });
  }

  async read(uploadId: string, size: number): Promise<Readable | null> {
    const chunk = (ordinal: number) => this.chunks.find(uploadId, ordinal);
    const first = await chunk(0);
    if (!first) return size === 0 ? Readable.from([]) : null;
    async function* pieces(): AsyncGenerator<Buffer> {
      yield first!;
      let sent = first!.length;
      for (let ordinal = 1; sent < size; ordinal++) {
        const next = await chunk(ordinal);
        // Only a purge removing the upload while it is served gets here: the pieces are written and deleted with the row.
        if (!next) throw new Error(`Upload ${uploadId} ends after ${sent} of its ${size} bytes: piece ${ordinal} is gone`);
        sent += next.length;
        yield next;
      }
    }
    // Reads the next piece only when the response has taken the one before (backpressure).
    return Readable.from(pieces(), { objectMode: false, highWaterMark: UPLOAD_CHUNK_BYTES });
  }
}
