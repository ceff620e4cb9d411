import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { AdminService } from '../src/admin/admin.service';
import { openDatabase } from '../src/database/database';
import { QuotaScope } from '../src/modules/quota/quota.scopes';
import { createApiKey, createTenant, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, type TestTenant } from './support/test-app';

const run = promisify(execFile);
const METERING = '/api/openapi/v1/metering-policy';

/** The address of another database on the same server. */
function siblingDatabaseUrl(url: string, name: string): string {
  const address = new URL(url);
  address.pathname = `/${name}`;
  return address.toString();
}

async function onServer(url: string, statement: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// docs/operations.md, "Backups and restore": its two commands, as written there.
(testDatabaseUrl() ? describe : describe.skip)('a pg_dump restored with pg_restore (PostgreSQL)', () => {
  let source: string;
  let restoredName: string;
  let restored: string;
  let active: TestTenant;
  let revoked: TestTenant;

  beforeAll(async () => {
    source = testDatabaseUrl()!;
    restoredName = `${decodeURIComponent(new URL(source).pathname.slice(1))}_restored`;
    restored = siblingDatabaseUrl(source, restoredName);
    const database = await openTestDatabase();
    try {
      active = await createTenant(database, [QuotaScope.Read]);
      revoked = await createApiKey(database, active.organizationId, [QuotaScope.Read]);
      await new AdminService(database.sql).revokeApiKey(revoked.apiKeyId);
    } finally {
      await database.close();
    }
    const dump = join(mkdtempSync(join(tmpdir(), 'wsa-backup-')), 'workspace-admin.dump');
    await run('pg_dump', ['--format=custom', `--file=${dump}`, source]);
    await onServer(source, `DROP DATABASE IF EXISTS "${restoredName}" WITH (FORCE)`);
    await onServer(source, `CREATE DATABASE "${restoredName}"`);
    await run('pg_restore', ['--clean', '--if-exists', '--no-owner', `--dbname=${restored}`, dump]);
  });

  afterAll(async () => {
    await onServer(source, `DROP DATABASE IF EXISTS "${restoredName}" WITH (FORCE)`);
  });

  it('serves the restored keys as before: the active key answered, the revoked one refused', async () => {
    const config = testConfig({ DATABASE_URL: restored });
    const database = await openDatabase(config);
    const app = await startTestApp(database, { DATABASE_URL: restored });
    try {
      await app.http().get(METERING).set('Authorization', active.bearer).expect(200);
      await app.http().get(METERING).set('Authorization', revoked.bearer).expect(401);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
