import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { AppConfig } from '../config/app-config';
import { PrismaClient } from '../generated/prisma/client';
import { EmbeddedDatabaseLock } from './embedded-lock';
import { openEmbeddedPGlite } from './embedded-template';
import { applyMigrations, defaultMigrationsDir, readMigrations } from './migrator';
import { pgliteSession, pgSession } from './sql-session';

export type DatabaseKind = 'postgres' | 'embedded';

/** An open database: the Prisma client, the migration runner and the way to close it all. */
export interface Database {
  readonly kind: DatabaseKind;
  readonly prisma: PrismaClient;
  migrate(migrationsDir?: string): Promise<string[]>;
  close(): Promise<void>;
}

// Any constant works; it only has to be the same in every process migrating one database.
const MIGRATION_LOCK_ID = 7_301_977_114;

export type DatabaseSettings = Pick<AppConfig, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'TRANSACTION_TIMEOUT_MS'>;

export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  return settings.DATABASE_URL ? openPostgres(settings.DATABASE_URL, settings) : openEmbedded(settings.DATA_DIR, settings);
}

function transactionOptions(settings: DatabaseSettings) {
  // PGlite has one connection: transactions queue behind each other, so waiting is normal there.
  return { maxWait: settings.TRANSACTION_TIMEOUT_MS, timeout: settings.TRANSACTION_TIMEOUT_MS };
}

async function openPostgres(url: string, settings: DatabaseSettings): Promise<Database> {
  const pool = new Pool({ connectionString: url, max: settings.DATABASE_POOL_SIZE, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: transactionOptions(settings) });
  return {
    kind: 'postgres',
    prisma,
    async migrate(migrationsDir = defaultMigrationsDir()) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        try {
          return await applyMigrations(pgSession(client), readMigrations(migrationsDir));
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function openEmbedded(dataDir: string, settings: DatabaseSettings): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const lock = inMemory ? undefined : EmbeddedDatabaseLock.acquire(dataDir);
  try {
    const pglite = await openEmbeddedPGlite(dataDir);
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite), transactionOptions: transactionOptions(settings) });
    return {
      kind: 'embedded',
      prisma,
      migrate: (migrationsDir = defaultMigrationsDir()) => applyMigrations(pgliteSession(pglite), readMigrations(migrationsDir)),
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
