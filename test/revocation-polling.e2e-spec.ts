import { AdminService } from '../src/admin/admin.service';
import { VerifiedKeyCache } from '../src/common/auth/verified-key-cache';
import type { Database } from '../src/database/database';
import { LISTENER_APPLICATION_NAME } from '../src/database/notifications';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, openTestDatabase, startTestApp, testDatabaseUrl, until, type TestApp, type TestTenant } from './support/test-app';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const PATH = '/api/openapi/v1/metering-policy';
// The cache answers until two intervals after the last poll that succeeded: with 200 ms, a poll
// delayed by a loaded 2-core machine let the cache lapse mid-test (a 401 where 200 was expected).
const POLL_MS = 1000;
// Without notifications, as on CockroachDB: each instance polls the revocation version.
const SETTINGS = { DATABASE_NOTIFICATIONS: 'off' as const, API_KEY_REVOCATION_POLL_MS: POLL_MS, API_KEY_CACHE_MAX_AGE_SECONDS: 300 };

function read(testApp: TestApp, key: TestTenant) {
  return testApp.http().get(PATH).set('Authorization', key.bearer);
}

describe('API key revocation without LISTEN/NOTIFY (DATABASE_NOTIFICATIONS=off): two instances polling the revocation version', () => {
  let database: Database;
  let admin: AdminService;
  let instances: TestApp[];
  let tenant: TestTenant;

  beforeAll(async () => {
    database = await openTestDatabase();
    admin = new AdminService(database.sql, undefined, 'off');
    instances = [await startTestApp(database, SETTINGS), await startTestApp(database, SETTINGS)];
    tenant = await createTenant(database, [QuotaScope.Read]);
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await database.close();
  });

  const newKey = () => createApiKey(database, tenant.organizationId, [QuotaScope.Read]);

  it('caches verified keys meanwhile: a key revoked behind the service’s back (no version change) is still answered', async () => {
    const key = await newKey();
    for (const instance of instances) await read(instance, key).expect(200);
    await database.prisma.apiKey.update({ where: { id: key.apiKeyId }, data: { revokedAt: new Date() } });
    // Several poll intervals: the version did not change, so the cache keeps the key.
    await new Promise((resolve) => setTimeout(resolve, 3 * POLL_MS));
    for (const instance of instances) await read(instance, key).expect(200);
  });

  it('refuses a key revoked by the admin service on every instance once each has polled, long before the maximum age', async () => {
    for (let round = 0; round < 3; round++) {
      const key = await newKey();
      for (const instance of instances) await read(instance, key).expect(200);
      const emptied = instances.map((instance) => jest.spyOn(instance.app.get(VerifiedKeyCache), 'someRevoked'));
      const revokedAt = performance.now();
      await admin.revokeApiKey(key.apiKeyId);
      await until(() => emptied.every((spy) => spy.mock.calls.length > 0));
      const tookMs = performance.now() - revokedAt;
      for (const instance of instances) expectErrorBody(await read(instance, key), 401, 'UNAUTHENTICATED', 'unauthorized');
      // Within a poll interval or two (plus a loaded machine's delays), not the 60 s the cache keeps keys at most when polled.
      expect(tookMs).toBeLessThan(10_000);
      jest.restoreAllMocks();
    }
  });

  it('increments the revocation version once per revocation and sends no NOTIFY', async () => {
    const version = async () => (await database.prisma.apiKeyRevocationVersion.findUniqueOrThrow({ where: { id: 1 } })).version;
    const before = await version();
    const key = await newKey();
    await admin.revokeApiKey(key.apiKeyId);
    expect(await version()).toBe(before + 1n);
  });

  (testDatabaseUrl() ? it : it.skip)('opens no listening connection (PostgreSQL)', async () => {
    const listeners = await database.prisma.$queryRaw<Array<{ pid: number }>>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION_NAME}`;
    expect(listeners).toEqual([]);
  });
});
