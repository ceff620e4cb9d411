import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { PrismaClient } from '../generated/prisma/client';
import { EmbeddedDatabaseLock } from './embedded-lock';
import { applyMigrations, defaultMigrationsDir, readMigrations } from './migrator';
import { listenOnPGlite, listenOnPostgres, type NotificationHandlers, type NotificationSubscription, Subscriptions } from './notifications';
import { PostgresPool } from './postgres-pool';
import { PostgresPing } from './postgres-ping';
import { pgliteSession, pgSession } from './sql-session';
import { SqlDriver } from './sql-driver';
import { preparedStatementNames } from './prepared-statements';
import { withSessionAdvisoryLock } from './locks';
import { ReadReplica } from './read-replica';
import type { PoolUsage } from './database-pool';

export type DatabaseKind = 'postgres' | 'embedded';

/** An open database: the SQL driver, the migration runner, NOTIFY listening and the way to close it all. */
export interface Database {
  readonly kind: DatabaseKind;
  /** The one way the service runs statements (TransactionHost.sql): Prisma's driver adapter, without the client. */
  readonly sql: SqlDriver;
  /**
   * A Prisma client on the same connections, created on first use: for tests that arrange and
   * inspect rows. The service, its workers and the CLI never use it.
   */
  readonly prisma: PrismaClient;
  /** Reads on DATABASE_REPLICA_URL, failing over to the primary (TransactionHost.replica); undefined without one. */
  readonly replica: ReadReplica | undefined;
  migrate(migrationsDir?: string): Promise<string[]>;
  /** Receives the NOTIFYs of `channel` until closed, or until the database is closed. */
  listen(channel: string, handlers: NotificationHandlers): Promise<NotificationSubscription>;
  /** Undefined for the embedded database, which has one connection and no pool. */
  poolUsage(): PoolUsage | undefined;
  /**
   * Resolves when the database answers `SELECT 1`, on a connection of its own (PostgreSQL), so
   * that a pool whose every connection is busy or waiting on a lock does not read as an outage.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Any constant works; it only has to be the same in every process migrating one database.
const MIGRATION_LOCK_ID = 7_301_977_114;

export type DatabaseSettings = Pick<
  AppConfig,
  'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_POOL_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS' | 'DATABASE_PREPARED_STATEMENTS' | 'TRANSACTION_TIMEOUT_MS'
> &
  // Without a replica (the CLI's tools, test set-up) these may be left out.
  Partial<Pick<AppConfig, 'DATABASE_REPLICA_URL' | 'DATABASE_REPLICA_POOL_SIZE'>>;

// Prisma's pg adapter reads a timestamptz by replacing its offset with +00:00 and writes a Date as
// text without one, so both are right only in a UTC session: with the server's TimeZone set to New
// York, a stored 12:00Z read back as 07:00Z (test/sql-driver.e2e-spec.ts). TimeZone is one of the
// parameters PgBouncer tracks per client and sets again on whichever server connection it lends the
// client, so this holds behind a pooler in transaction mode too (test/pooler.e2e-spec.ts).
const UTC_SESSION = "SET TIME ZONE 'UTC'";

export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  return settings.DATABASE_URL ? openPostgres(settings.DATABASE_URL, settings) : openEmbedded(settings.DATA_DIR, settings);
}

function clientOptions(settings: DatabaseSettings) {
  return {
    // PGlite has one connection: transactions queue behind each other, so waiting is normal there.
    transactionOptions: { maxWait: settings.TRANSACTION_TIMEOUT_MS, timeout: settings.TRANSACTION_TIMEOUT_MS },
    // Any other format captures a stack trace (new Error()) on every query, only to point at the
    // caller in error messages, which never reach a client anyway.
    errorFormat: 'minimal' as const,
  };
}

/**
 * `url` carries the pooled connections (the statements of requests and jobs, and readiness), which
 * may go through a pooler in transaction mode; `directUrl` the session-bound ones that cannot:
 * LISTEN and the migrations' session advisory lock.
 */
async function openPostgres(url: string, settings: DatabaseSettings): Promise<Database> {
  const directUrl = settings.DATABASE_DIRECT_URL ?? url;
  const pool = openPool(url, settings.DATABASE_POOL_SIZE, settings);
  const ping = openPing(url, settings);
  const prisma = lazyClient(() => new PrismaClient({ adapter: new PrismaPg(pool), ...clientOptions(settings) }));
  const sql = await openSqlDriver(pool, settings);
  const replica = settings.DATABASE_REPLICA_URL ? await openReplica(settings.DATABASE_REPLICA_URL, sql, settings) : undefined;
  const subscriptions = new Subscriptions();
  return {
    kind: 'postgres',
    get prisma() {
      return prisma.get();
    },
    sql,
    replica: replica?.reads,
    async migrate(migrationsDir = defaultMigrationsDir()) {
      // A connection of its own, outside the pool: a migration may lock and run as long as it needs.
      const client = new Client({ connectionString: directUrl, connectionTimeoutMillis: settings.DATABASE_POOL_TIMEOUT_MS });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query(UTC_SESSION);
        return await withSessionAdvisoryLock(client, MIGRATION_LOCK_ID, () => applyMigrations(pgSession(client), readMigrations(migrationsDir)));
      } finally {
        await client.end();
      }
    },
    listen: async (channel, handlers) => subscriptions.track(await listenOnPostgres(directUrl, channel, handlers)),
    poolUsage: () => usageOf(pool),
    ping: () => ping.ping(),
    async close() {
      await subscriptions.closeAll();
      await ping.close();
      await replica?.close();
      await prisma.disconnect();
      await pool.end();
    },
  };
}

/** The pooled connections to one server (the primary, or the replica), every statement with its deadline. */
function openPool(url: string, size: number, settings: DatabaseSettings): PostgresPool {
  const pool = new PostgresPool({
    connectionString: url,
    max: size,
    connectionTimeoutMillis: settings.DATABASE_POOL_TIMEOUT_MS,
    statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
    transactionTimeoutMs: settings.TRANSACTION_TIMEOUT_MS,
    // Awaited before the connection is handed out, so no statement can race it.
    onConnect: (client) => client.query(UTC_SESSION),
  });
  // A client losing its connection must not crash the process, whether it is idle in the pool or
  // checked out between two queries (pg emits 'error' on the client then): the query that uses it
  // next fails and answers 503, and the pool replaces the client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

function usageOf(pool: PostgresPool): PoolUsage {
  return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

function openPing(url: string, settings: DatabaseSettings): PostgresPing {
  return new PostgresPing({ connectionString: url, connectionTimeoutMillis: settings.DATABASE_POOL_TIMEOUT_MS, statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS });
}

/** Raw statements on `pool`: the client's statements (model queries) stay unnamed; these (every raw one) are prepared. */
async function openSqlDriver(pool: PostgresPool, settings: DatabaseSettings): Promise<SqlDriver> {
  const adapter = new PrismaPg(pool, { statementNameGenerator: preparedStatementNames(settings.DATABASE_PREPARED_STATEMENTS) });
  return new SqlDriver(await adapter.connect(), settings.TRANSACTION_TIMEOUT_MS);
}

/**
 * The read replica: a pool of its own (DATABASE_REPLICA_POOL_SIZE) with the primary's statement
 * deadlines, UTC session and prepared-statement setting, and readiness's ping. Nothing connects
 * yet: a replica that is down at start only sends its reads to the primary.
 */
async function openReplica(url: string, primary: SqlDriver, settings: DatabaseSettings): Promise<{ reads: ReadReplica; close(): Promise<void> }> {
  const pool = openPool(url, settings.DATABASE_REPLICA_POOL_SIZE ?? settings.DATABASE_POOL_SIZE, settings);
  const ping = openPing(url, settings);
  const sql = await openSqlDriver(pool, settings);
  return {
    reads: new ReadReplica(sql.queries, primary.queries, { ping: () => ping.ping(), poolUsage: () => usageOf(pool) }),
    async close() {
      await ping.close();
      await pool.end();
    },
  };
}

async function openEmbedded(dataDir: string, settings: DatabaseSettings): Promise<Database> {
  if (settings.DATABASE_REPLICA_URL) throw new Error('DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replicas');
  const inMemory = dataDir.startsWith('memory://');
  const lock = inMemory ? undefined : EmbeddedDatabaseLock.acquire(dataDir);
  try {
    // Loaded here, not at the top: a service on PostgreSQL never loads the embedded database's code.
    const { openEmbeddedPGlite } = await import('./embedded-template');
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    const pglite = await openEmbeddedPGlite(dataDir);
    const adapter = new PrismaPGlite(pglite);
    const prisma = lazyClient(() => new PrismaClient({ adapter, ...clientOptions(settings) }));
    const sql = new SqlDriver(await adapter.connect(), settings.TRANSACTION_TIMEOUT_MS);
    const subscriptions = new Subscriptions();
    return {
      kind: 'embedded',
      get prisma() {
        return prisma.get();
      },
      sql,
      replica: undefined,
      migrate: (migrationsDir = defaultMigrationsDir()) => applyMigrations(pgliteSession(pglite), readMigrations(migrationsDir)),
      listen: async (channel, handlers) => subscriptions.track(await listenOnPGlite(pglite, channel, handlers)),
      poolUsage: () => undefined,
      ping: async () => {
        await pglite.query('SELECT 1');
      },
      async close() {
        await subscriptions.closeAll();
        await prisma.disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** A Prisma client made on first use, and disconnected at close only if it was. */
function lazyClient(create: () => PrismaClient): { get(): PrismaClient; disconnect(): Promise<void> } {
  let client: PrismaClient | undefined;
  return {
    get: () => (client ??= create()),
    disconnect: async () => {
      await client?.$disconnect();
    },
  };
}
