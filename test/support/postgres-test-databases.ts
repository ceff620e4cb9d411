import { createHash } from 'node:crypto';
import type { Client } from 'pg';

// On PostgreSQL (TEST_DATABASE_URL) the suite migrates one template database once per run (jest's
// globalSetup), and each test file works on its own copy of it (CREATE DATABASE … TEMPLATE), so
// that no file sees another's rows. Every copy is named after the given database.

/** The database CI gives the suite; only ever used to create and drop the template and the copies. */
export function serverDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

function withDatabaseName(url: string, name: string): string {
  const address = new URL(url);
  address.pathname = `/${name}`;
  return address.toString();
}

const baseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

export const templateDatabaseUrl = (server: string) => withDatabaseName(server, `${baseName(server)}_template`);

/** The copy a test file works on, named after the file so that its database is easy to find. */
export function fileDatabaseUrl(server: string, testPath: string): string {
  return withDatabaseName(server, `${baseName(server)}_${createHash('sha256').update(testPath).digest('hex').slice(0, 12)}`);
}

// `pg` and the application's database code are loaded when used: test/support/file-database.ts
// imports this module before every test file, unit tests included.
async function onServer(server: string, work: (client: Client) => Promise<void>): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: server });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

async function dropDatabase(client: Client, name: string): Promise<void> {
  await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
}

/** A new template database with every migration applied. */
export async function createTemplateDatabase(server: string): Promise<void> {
  const template = baseName(templateDatabaseUrl(server));
  await onServer(server, async (client) => {
    await dropDatabase(client, template);
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(template)}`);
  });
  const { openDatabase } = await import('../../src/database/database');
  const database = await openDatabase({
    DATABASE_URL: templateDatabaseUrl(server),
    DATA_DIR: 'memory://',
    DATABASE_POOL_SIZE: 1,
    DATABASE_POOL_TIMEOUT_MS: 10_000,
    DATABASE_STATEMENT_TIMEOUT_MS: 60_000,
    DATABASE_PREPARED_STATEMENTS: 0,
    TRANSACTION_TIMEOUT_MS: 60_000,
  });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}

/** A fresh copy of the template at `url` (replacing one a previous run left). */
export async function copyTemplateDatabase(server: string, url: string): Promise<void> {
  await onServer(server, async (client) => {
    await dropDatabase(client, baseName(url));
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(baseName(url))} TEMPLATE ${client.escapeIdentifier(baseName(templateDatabaseUrl(server)))}`);
  });
}

/** Drops the template and every file's copy. */
export async function dropTestDatabases(server: string): Promise<void> {
  const prefix = `${baseName(server)}_`;
  await onServer(server, async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
    for (const { datname } of rows) await dropDatabase(client, datname);
  });
}

/**
 * A new, empty database on the server for one test's own use (a previous run's is dropped first),
 * named after the server's database so that dropTestDatabases removes it; `options` are CREATE
 * DATABASE's (a template, an encoding, a locale). Returns its URL.
 */
export async function createScratchDatabase(server: string, suffix: string, options = ''): Promise<string> {
  const url = withDatabaseName(server, `${baseName(server)}_${suffix}`);
  await onServer(server, async (client) => {
    await dropDatabase(client, baseName(url));
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(baseName(url))} ${options}`);
  });
  return url;
}
