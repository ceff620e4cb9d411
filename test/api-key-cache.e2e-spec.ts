import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AdminService } from '../src/admin/admin.service';
import { VerifiedKeyCache } from '../src/common/auth/verified-key-cache';
import { Clock } from '../src/common/clock';
import type { Database } from '../src/database/database';
import { LISTENER_APPLICATION_NAME } from '../src/database/notifications';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, openTestDatabase, startTestApp, testDatabaseUrl, until, type TestApp, type TestTenant } from './support/test-app';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const run = promisify(execFile);
const distDir = join(__dirname, '..', 'dist', 'src');
const PATH = '/api/openapi/v1/metering-policy';
const MAX_AGE_SECONDS = 300;

function read(testApp: TestApp, key: TestTenant) {
  return testApp.http().get(PATH).set('Authorization', key.bearer);
}

async function expectRefused(testApp: TestApp, key: TestTenant): Promise<void> {
  expectErrorBody(await read(testApp, key), 401, 'UNAUTHENTICATED', 'unauthorized');
}

describe('API key cache: two instances on one database', () => {
  let database: Database;
  let admin: AdminService;
  let first: TestApp;
  let second: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = await openTestDatabase();
    admin = new AdminService(database.sql);
    first = await startTestApp(database, { API_KEY_CACHE_MAX_AGE_SECONDS: MAX_AGE_SECONDS });
    second = await startTestApp(database, { API_KEY_CACHE_MAX_AGE_SECONDS: MAX_AGE_SECONDS });
    tenant = await createTenant(database, [QuotaScope.Read]);
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    await database.close();
  });

  async function newKey(): Promise<TestTenant> {
    return createApiKey(database, tenant.organizationId, [QuotaScope.Read]);
  }

  /** What an operator does: the CLI as its own process on PostgreSQL; PGlite belongs to this process. */
  async function revokeAsOperator(apiKeyId: string): Promise<void> {
    if (database.kind === 'embedded') {
      await admin.revokeApiKey(apiKeyId);
      return;
    }
    const cli = join(distDir, 'cli', 'main.js');
    const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'error' };
    const { stdout } = await run('node', [cli, 'apikey', 'revoke', '--id', apiKeyId], { env });
    expect(JSON.parse(stdout)).toEqual({ id: apiKeyId, revoked_at: expect.any(String) });
  }

  it('keeps answering a key nobody revoked, on both instances', async () => {
    const key = await newKey();
    for (let i = 0; i < 3; i++) {
      await read(first, key).expect(200);
      await read(second, key).expect(200);
    }
  });

  it('answers a verified key from memory, up to the maximum age', async () => {
    const key = await newKey();
    await read(first, key).expect(200);
    // Revoked behind the service's back (no NOTIFY): only the database knows.
    await database.prisma.apiKey.update({ where: { id: key.apiKeyId }, data: { revokedAt: new Date() } });
    await read(first, key).expect(200);
    await expectRefused(second, key); // never cached there

    const cachedAt = Date.now();
    jest.spyOn(first.app.get(Clock), 'now').mockImplementation(() => new Date(cachedAt + MAX_AGE_SECONDS * 1000));
    await expectRefused(first, key);
  });

  it('looks every key up in the database when the cache is turned off (maximum age 0)', async () => {
    const uncached = await startTestApp(database, { API_KEY_CACHE_MAX_AGE_SECONDS: 0 });
    try {
      const key = await newKey();
      await read(uncached, key).expect(200);
      await database.prisma.apiKey.update({ where: { id: key.apiKeyId }, data: { revokedAt: new Date() } });
      await expectRefused(uncached, key);
    } finally {
      await uncached.close();
    }
  });

  it('refuses a revoked key with the first request on each instance (20 keys)', async () => {
    for (let i = 0; i < 20; i++) {
      const key = await newKey();
      await read(first, key).expect(200);
      await read(second, key).expect(200);
      await revokeAsOperator(key.apiKeyId);
      await expectRefused(first, key);
      await expectRefused(second, key);
    }
  }, 300_000); // 20 CLI processes on PostgreSQL

  const onPostgres = testDatabaseUrl() ? it : it.skip;

  onPostgres('refuses a key revoked while the listening connections were down, and caches again once they are back', async () => {
    const key = await newKey();
    await read(first, key).expect(200);
    await read(second, key).expect(200);
    const listening = [first, second].map((testApp) => jest.spyOn(testApp.app.get(VerifiedKeyCache), 'setListening'));

    // With a timeout, pg_terminate_backend returns once the backend is gone: its client has been told.
    const terminated = await database.prisma.$queryRaw<Array<{ terminated: boolean }>>`
      SELECT pg_terminate_backend(pid, 5000) AS terminated FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION_NAME}`;
    // At least these two instances' listeners; test files running in parallel may add theirs.
    expect(terminated.length).toBeGreaterThanOrEqual(2);
    expect(terminated.every((row) => row.terminated)).toBe(true);
    await admin.revokeApiKey(key.apiKeyId);
    await expectRefused(first, key);
    await expectRefused(second, key);

    await until(() => listening.every((spy) => spy.mock.calls.some(([isListening]) => isListening)));
    const next = await newKey();
    await read(first, next).expect(200);
    await read(second, next).expect(200);
    await database.prisma.apiKey.update({ where: { id: next.apiKeyId }, data: { revokedAt: new Date() } });
    await read(first, next).expect(200); // cached again: no NOTIFY, no refusal
    await read(second, next).expect(200);
    await revokeAsOperator(next.apiKeyId);
    await expectRefused(first, next);
    await expectRefused(second, next);
  });

  onPostgres('lets the built service start while its listener connects, and stop on SIGTERM', async () => {
    const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'log' };
    const service = spawn('node', [join(distDir, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    service.stdout.on('data', (chunk) => (output += chunk));
    service.stderr.on('data', (chunk) => (output += chunk));
    let exitedWith: NodeJS.Signals | number | null | undefined;
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => service.once('exit', (code, signal) => resolve((exitedWith = signal ?? code))));
    await until(() => /Listening on port \d+/.test(output) || exitedWith !== undefined);
    if (exitedWith !== undefined) throw new Error(`the service exited (${exitedWith}) before listening:\n${output}`);
    const port = /Listening on port (\d+)/.exec(output)![1];
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/openapi/v1/metering-policy`, { headers: { authorization: tenant.bearer } });
      expect(response.status).toBe(200);
    } finally {
      service.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
