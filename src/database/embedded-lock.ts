import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * PGlite lets any number of processes open one data directory and then corrupts it, so the
 * service and the CLI take this lock file beside the directory first.
 */
export class EmbeddedDatabaseLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string): EmbeddedDatabaseLock {
    const path = `${resolve(dataDir)}.lock`;
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8'));
      if (isRunning(holder)) {
        throw new Error(
          `The embedded database at ${resolve(dataDir)} is in use by process ${holder}. ` +
            'Stop that process first, or set DATABASE_URL to use PostgreSQL.',
        );
      }
      writeFileSync(path, String(process.pid));
    }
    return new EmbeddedDatabaseLock(path);
  }

  release(): void {
    rmSync(this.path, { force: true });
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
