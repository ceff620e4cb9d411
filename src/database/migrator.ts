import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SqlSession } from './sql-session';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

interface AppliedMigration {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

// The same table `prisma migrate deploy` keeps, so either tool can take over from the other.
const HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** The project's prisma/migrations folder, found upwards from this file (src/ under jest, dist/src/ when built). */
export function defaultMigrationsDir(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'prisma', 'migrations');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`No prisma/migrations folder above ${from}`);
}

export function readMigrations(migrationsDir: string): Migration[] {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, and records them as
 * Prisma does. The caller serialises concurrent runners (see database.ts). Returns the names applied.
 */
export async function applyMigrations(session: SqlSession, migrations: Migration[]): Promise<string[]> {
  await session.exec(HISTORY_TABLE);
  const applied = await session.query<AppliedMigration>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  );
  const appliedByName = new Map(applied.map((row) => [row.migration_name, row]));
  const done: string[] = [];

  for (const migration of migrations) {
    const previous = appliedByName.get(migration.name);
    if (previous) {
      if (!previous.finished_at) {
        throw new Error(`Migration ${migration.name} started earlier but did not finish; resolve it by hand before migrating.`);
      }
      if (previous.checksum !== migration.checksum) {
        throw new Error(`Migration ${migration.name} was changed after it was applied (checksum differs); add a new migration instead.`);
      }
      continue;
    }
    await session.exec('BEGIN');
    try {
      await session.exec(migration.sql);
      await session.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      await session.exec('COMMIT');
    } catch (error) {
      await session.exec('ROLLBACK');
      throw new Error(`Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
    }
    done.push(migration.name);
  }
  return done;
}
