import type { Readable } from 'node:stream';

/**
 * Where the bytes of uploads live. The uploads row says what an upload is (kind, size, sha256,
 * content type); an implementation keeps its bytes, written in the transaction that writes the row
 * and removed with the row. The service ships DatabaseUploadStorage: every instance serves every
 * upload, and a backup of the database holds them.
 */
export abstract class UploadStorage {
  /** Stores the bytes of the upload `uploadId` (its row written already), in the caller's transaction if there is one. */
  abstract write(uploadId: string, bytes: Buffer): Promise<void>;

  /**
   * The `size` bytes of the upload as a stream, or null when none are stored. Resolves once the
   * first part is read, so that a database failing at that point is an error of this call (a clean
   * 503) rather than a response broken off after its headers.
   */
  abstract read(uploadId: string, size: number): Promise<Readable | null>;
}
