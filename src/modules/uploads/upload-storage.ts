/**
 * Where the bytes of uploads live. The database keeps what an upload is (uploads table, with its
 * storage_key); an implementation of this class keeps the bytes under that key. The service ships
 * LocalDiskUploadStorage; an object store (S3, GCS, ...) is a new implementation of these three
 * methods bound in ExpertSuitesModule. Keys are `<organization id>/<upload id>`.
 */
export abstract class UploadStorage {
  /** Stores the bytes under `key`, replacing nothing: a key is written once. */
  abstract put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes under `key`, or null when there are none. */
  abstract get(key: string): Promise<Buffer | null>;
  /** Removes the bytes under `key`; removing what is not there is not an error. */
  abstract delete(key: string): Promise<void>;
}
