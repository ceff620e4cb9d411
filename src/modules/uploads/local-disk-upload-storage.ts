import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { UploadStorage } from './upload-storage';

const KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** Keeps uploads as files under one directory (UPLOAD_DIR), one file per key. */
export class LocalDiskUploadStorage extends UploadStorage {
  private readonly root: string;

  constructor(directory: string) {
    super();
    this.root = resolve(directory);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Written beside the target and renamed, so a reader never sees half a file.
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, bytes, { flag: 'wx' });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`Not an upload storage key: ${JSON.stringify(key)}`);
    const path = join(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error('Upload storage key escapes the upload directory');
    return path;
  }
}
