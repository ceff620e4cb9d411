import { Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { UPLOAD_CHUNK_BYTES } from './database-upload-storage';

// yauzl reads a zip's central directory, then each entry's header and data, mostly in order: a few
// recent pieces serve the small reads that fall in a piece already read.
const CACHED_CHUNKS = 4;

/**
 * Lets yauzl read an upload whose bytes are in upload_chunks (a piece at a time through
 * `readChunk`, in the transaction that wrote them), a range at a time, so that a package is checked
 * without being held whole. A database failure is kept in `failure`: the package reader turns any
 * read error into `invalid_archive`, and the caller answers with this instead.
 */
export class ChunkRangeReader extends yauzl.RandomAccessReader {
  failure: unknown;
  private readonly chunks = new Map<number, Promise<Buffer>>();

  constructor(
    private readonly uploadId: string,
    private readonly readChunk: (ordinal: number) => Promise<Buffer | null>,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(this.range(start, end), { objectMode: false });
  }

  private async *range(start: number, end: number): AsyncGenerator<Buffer> {
    for (let ordinal = Math.floor(start / UPLOAD_CHUNK_BYTES); ordinal * UPLOAD_CHUNK_BYTES < end; ordinal++) {
      const chunk = await this.chunk(ordinal);
      const offset = ordinal * UPLOAD_CHUNK_BYTES;
      yield chunk.subarray(Math.max(start - offset, 0), Math.min(end - offset, chunk.length));
    }
  }

  private chunk(ordinal: number): Promise<Buffer> {
    let chunk = this.chunks.get(ordinal);
    if (!chunk) {
      chunk = this.readChunk(ordinal).then(
        (bytes) => bytes ?? Promise.reject(new Error(`Upload ${this.uploadId} has no piece ${ordinal}`)),
        (error: unknown) => {
          this.failure ??= error;
          throw error;
        },
      );
      this.chunks.set(ordinal, chunk);
      if (this.chunks.size > CACHED_CHUNKS) this.chunks.delete(this.chunks.keys().next().value!);
    }
    return chunk;
  }
}
