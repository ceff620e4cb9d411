import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lockSync } from 'proper-lockfile';

// The holder refreshes the lock's time stamp every STALE_MS / 2; a lock not refreshed for this long
// belongs to a process that died without releasing it and may be taken over.
const STALE_MS = 10_000;

/**
 * PGlite lets any number of processes open one data directory and then corrupts it, so the
 * service and the CLI take this lock beside the directory first. It is a directory created
 * atomically and kept fresh by its holder (proper-lockfile), so it holds across processes that
 * cannot see each other's PIDs, such as two containers sharing one volume.
 */
export class EmbeddedDatabaseLock {
  private constructor(private readonly releaseLock: () => void) {}

  static acquire(dataDir: string): EmbeddedDatabaseLock {
    const path = resolve(dataDir);
    mkdirSync(dirname(path), { recursive: true });
    try {
      return new EmbeddedDatabaseLock(
        lockSync(path, { realpath: false, stale: STALE_MS, lockfilePath: `${path}.lock`, onCompromised: lockLost }),
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      throw new Error(
        `The embedded database at ${path} is in use by another process (possibly in another container sharing this ` +
          `directory, or one that stopped less than ${STALE_MS / 1000} s ago without releasing it). ` +
          'Stop that process first (to run an admin CLI command beside `npm start`: stop the service, run the command, ' +
          'start it again), or set DATABASE_URL to use PostgreSQL.',
      );
    }
  }

  release(): void {
    try {
      this.releaseLock();
    } catch {
      // Already released, or taken over after it went stale: nothing of ours to remove.
    }
  }
}

/**
 * Another process took the lock over (this one could not refresh it in time, e.g. a host that
 * stalled for longer than STALE_MS): two writers would corrupt the directory, so stop at once.
 */
function lockLost(error: Error): never {
  process.stderr.write(`The lock of the embedded database was lost (${error.message}); stopping so that only one process writes to it.\n`);
  process.exit(1);
}
