import { AdminService } from '../src/admin/admin.service';
import { Clock } from '../src/common/clock';
import { Database, openDatabase } from '../src/database/database';
import { nextResetAfter } from '../src/modules/quota/subscription-cycle';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, openTestDatabase, revokeAndAwaitNotice, startTestApp, testConfig, useTestApp, type TestApp, type TestTenant } from './support/test-app';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const PATH = '/api/openapi/v1/metering-policy';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Pins the running app's clock; returns a setter to move it. Restored by jest.restoreAllMocks. */
function pinClock(testApp: TestApp, iso: string | number): (next: string | number) => void {
  let pinned = new Date(iso);
  jest.spyOn(testApp.app.get(Clock), 'now').mockImplementation(() => new Date(pinned));
  return (next) => {
    pinned = new Date(next);
  };
}

function read(testApp: TestApp, tenant: TestTenant) {
  return testApp.http().get(PATH).set('Authorization', tenant.bearer);
}

describe('GET /api/openapi/v1/metering-policy', () => {
  const fixture = useTestApp();

  afterEach(() => jest.restoreAllMocks());

  it('returns 200 with exactly the five fields as ISO 8601 UTC strings, fresh, cycle_mode subscription-cycle', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    const before = Date.now();
    const response = await read(fixture.app, tenant).expect(200);
    const after = Date.now();

    expect(Object.keys(response.body).sort()).toEqual(['cycle_mode', 'data_as_of', 'data_status', 'next_reset_at', 'updated_at']);
    expect(response.body.cycle_mode).toBe('subscription-cycle');
    expect(response.body.data_status).toBe('fresh');
    for (const field of ['data_as_of', 'next_reset_at', 'updated_at']) expect(response.body[field]).toMatch(ISO_UTC);
    const dataAsOf = Date.parse(response.body.data_as_of);
    expect(dataAsOf).toBeGreaterThanOrEqual(before);
    expect(dataAsOf).toBeLessThanOrEqual(after);
    const subscription = await fixture.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(response.body.updated_at).toBe(subscription.updatedAt.toISOString());
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('anchors a new organization at its creation time: the first reset is one cycle after creation', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    const { anchorAt } = await fixture.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: tenant.organizationId } });
    const organization = await fixture.database.prisma.organization.findUniqueOrThrow({ where: { id: tenant.organizationId } });
    expect(Math.abs(anchorAt.getTime() - organization.createdAt.getTime())).toBeLessThan(5_000);

    const now = new Date(anchorAt.getTime() + 60_000);
    pinClock(fixture.app, now.getTime());
    const response = await read(fixture.app, tenant).expect(200);
    const expected = nextResetAfter(anchorAt, now);
    expect(response.body.next_reset_at).toBe(expected.toISOString());
    expect(expected.getUTCMonth()).toBe((anchorAt.getUTCMonth() + 1) % 12);
  });

  it("answers each organization with its own anchor's next reset", async () => {
    const endOfMonth = await createTenant(fixture.database, [QuotaScope.Read]);
    const midMonth = await createTenant(fixture.database, [QuotaScope.Read]);
    const future = await createTenant(fixture.database, [QuotaScope.Read]);
    await fixture.admin.setSubscriptionAnchor(endOfMonth.organizationId, '2024-01-31T23:30:00Z');
    await fixture.admin.setSubscriptionAnchor(midMonth.organizationId, '2023-06-15T08:00:00Z');
    await fixture.admin.setSubscriptionAnchor(future.organizationId, '2025-05-20T10:00:00+02:00');
    pinClock(fixture.app, '2025-02-10T00:00:00.000Z');

    const responses = await Promise.all([endOfMonth, midMonth, future].map((tenant) => read(fixture.app, tenant).expect(200)));
    expect(responses.map((r) => r.body.next_reset_at)).toEqual([
      '2025-02-28T23:30:00.000Z', // the 31st clamped to February's last day
      '2025-02-15T08:00:00.000Z',
      '2025-05-20T08:00:00.000Z', // an anchor in the future is itself the next reset (given in +02:00, answered in UTC)
    ]);
  });

  it('moves to the next cycle when now is exactly a reset instant', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    await fixture.admin.setSubscriptionAnchor(tenant.organizationId, '2024-01-31T23:30:00Z');
    const moveClock = pinClock(fixture.app, '2025-02-28T23:29:59.999Z');
    expect((await read(fixture.app, tenant).expect(200)).body.next_reset_at).toBe('2025-02-28T23:30:00.000Z');
    moveClock('2025-02-28T23:30:00.000Z');
    // Within the cache TTL: the cached anchor is used, next_reset_at is still computed for this instant.
    const atReset = await read(fixture.app, tenant).expect(200);
    expect(atReset.body.next_reset_at).toBe('2025-03-31T23:30:00.000Z');
    expect(atReset.body.data_as_of).toBe('2025-02-28T23:29:59.999Z');
  });

  it('names the right next reset from the cache when the clock is set back past a reset', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    await fixture.admin.setSubscriptionAnchor(tenant.organizationId, '2024-03-10T00:00:00Z');
    const moveClock = pinClock(fixture.app, '2025-01-15T00:00:00.000Z');
    expect((await read(fixture.app, tenant).expect(200)).body.next_reset_at).toBe('2025-02-10T00:00:00.000Z');
    moveClock('2025-01-09T23:59:59.000Z');
    const earlier = await read(fixture.app, tenant).expect(200);
    expect(earlier.body).toMatchObject({ next_reset_at: '2025-01-10T00:00:00.000Z', data_as_of: '2025-01-15T00:00:00.000Z' });
  });

  it('answers from the cache within the TTL and shows a moved anchor once the TTL has passed', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    await fixture.admin.setSubscriptionAnchor(tenant.organizationId, '2024-03-10T00:00:00Z');
    const moveClock = pinClock(fixture.app, '2025-01-01T00:00:00.000Z');
    const first = await read(fixture.app, tenant).expect(200);
    expect(first.body).toMatchObject({ next_reset_at: '2025-01-10T00:00:00.000Z', data_as_of: '2025-01-01T00:00:00.000Z', data_status: 'fresh' });

    await fixture.admin.setSubscriptionAnchor(tenant.organizationId, '2024-03-20T00:00:00Z');
    moveClock('2025-01-01T00:00:04.999Z');
    expect((await read(fixture.app, tenant).expect(200)).body).toEqual(first.body);

    moveClock('2025-01-01T00:00:05.000Z');
    const afterTtl = await read(fixture.app, tenant).expect(200);
    expect(afterTtl.body).toMatchObject({ next_reset_at: '2025-01-20T00:00:00.000Z', data_as_of: '2025-01-01T00:00:05.000Z', data_status: 'fresh' });
    expect(Date.parse(afterTtl.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
  });

  it("never answers one organization's cached policy to another", async () => {
    const first = await createTenant(fixture.database, [QuotaScope.Read]);
    const second = await createTenant(fixture.database, [QuotaScope.Read]);
    await fixture.admin.setSubscriptionAnchor(first.organizationId, '2024-01-05T00:00:00Z');
    await fixture.admin.setSubscriptionAnchor(second.organizationId, '2024-01-25T00:00:00Z');
    pinClock(fixture.app, '2025-01-10T00:00:00.000Z');
    expect((await read(fixture.app, first).expect(200)).body.next_reset_at).toBe('2025-02-05T00:00:00.000Z');
    expect((await read(fixture.app, second).expect(200)).body.next_reset_at).toBe('2025-01-25T00:00:00.000Z');
    expect((await read(fixture.app, first).expect(200)).body.next_reset_at).toBe('2025-02-05T00:00:00.000Z');
  });

  it('returns 403 naming the scope for a key without admin.v1.quota.read', async () => {
    const tenant = await createTenant(fixture.database, [DirectoryScope.Manage, ExpertSuitesScope.Manage]);
    const response = await read(fixture.app, tenant);
    expectErrorBody(response, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
    expect(response.body.detail).toContain(QuotaScope.Read);
  });

  it('refuses a revoked key at once although the route remembers keys for outages', async () => {
    const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
    const key = await createApiKey(fixture.database, tenant.organizationId, [QuotaScope.Read]);
    await read(fixture.app, key).expect(200);
    await revokeAndAwaitNotice(fixture.database, key.apiKeyId, fixture.app);
    expectErrorBody(await read(fixture.app, key), 401, 'UNAUTHENTICATED', 'unauthorized');
  });

  it('returns 401 without an API key', async () => {
    expectErrorBody(await fixture.app.http().get(PATH), 401, 'UNAUTHENTICATED', 'unauthorized');
  });

  it('answers 500, not a stale policy, when the read fails for a reason other than an unreachable database', async () => {
    const uncached = await startTestApp(fixture.database, { METERING_CACHE_TTL_MS: 0 });
    try {
      const tenant = await createTenant(fixture.database, [QuotaScope.Read]);
      await read(uncached, tenant).expect(200);
      // A broken invariant (an organization without its subscription) is a bug, not an outage.
      await fixture.database.prisma.subscription.delete({ where: { organizationId: tenant.organizationId } });
      expectErrorBody(await read(uncached, tenant), 500, 'INTERNAL_ERROR', 'internal_error');
    } finally {
      await uncached.close();
    }
  });

  it('documents the operation, its scope and its responses in OpenAPI', async () => {
    const document = (await fixture.app.http().get('/docs-json').expect(200)).body;
    const operation = document.paths[PATH].get;
    expect(operation['x-required-scope']).toBe(QuotaScope.Read);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    const schema = document.components.schemas.MeteringPolicyDto;
    expect(Object.keys(schema.properties).sort()).toEqual(['cycle_mode', 'data_as_of', 'data_status', 'next_reset_at', 'updated_at']);
    expect(schema.properties.data_status.enum).toEqual(['fresh', 'stale']);
    expect(schema.properties.next_reset_at.format).toBe('date-time');
  });
});

describe('GET /api/openapi/v1/metering-policy while the database is unavailable', () => {
  const MAX_STALENESS_SECONDS = 60;
  let database: Database;
  /** No fresh cache (TTL 0): every read goes to the database, so an outage shows at once. */
  let uncached: TestApp;
  /** A long TTL: reads within it never touch the database. */
  let cached: TestApp;
  /** Room for one organization in the cache. */
  let tiny: TestApp;
  let anchoredEnd: TestTenant;
  let anchoredMid: TestTenant;
  let neverRead: TestTenant;
  let evicted: TestTenant;
  let spansReset: TestTenant;
  const before: Record<string, { body: Record<string, string> }> = {};
  let closedAt: number;

  beforeAll(async () => {
    database = await openTestDatabase();
    const grace = { METERING_MAX_STALENESS_SECONDS: MAX_STALENESS_SECONDS, API_KEY_OUTAGE_GRACE_SECONDS: 3600 };
    uncached = await startTestApp(database, { ...grace, METERING_CACHE_TTL_MS: 0 });
    cached = await startTestApp(database, { ...grace, METERING_CACHE_TTL_MS: 3_600_000 });
    tiny = await startTestApp(database, { ...grace, METERING_CACHE_TTL_MS: 0, METERING_CACHE_MAX_ENTRIES: 1 });
    const admin = new AdminService(database.sql);
    [anchoredEnd, anchoredMid, neverRead, evicted, spansReset] = await Promise.all(
      [1, 2, 3, 4, 5].map(() => createTenant(database, [QuotaScope.Read])),
    );
    await admin.setSubscriptionAnchor(anchoredEnd.organizationId, '2024-01-31T23:30:00Z');
    await admin.setSubscriptionAnchor(anchoredMid.organizationId, '2024-01-15T12:00:00Z');
    await admin.setSubscriptionAnchor(spansReset.organizationId, '2024-01-31T23:30:00Z');

    pinClock(uncached, '2025-02-28T23:29:50.000Z');
    before.spansReset = await read(uncached, spansReset).expect(200);
    jest.restoreAllMocks();

    before.end = await read(uncached, anchoredEnd).expect(200);
    before.mid = await read(uncached, anchoredMid).expect(200);
    before.cachedEnd = await read(cached, anchoredEnd).expect(200);
    await read(tiny, evicted).expect(200);
    await read(tiny, anchoredEnd).expect(200); // pushes `evicted` out of the one-entry cache
    await database.close();
    closedAt = Date.now();
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await Promise.all([uncached.close(), cached.close(), tiny.close()]);
  });

  it('answers 200 stale with the original data_as_of after a successful read', async () => {
    const response = await read(uncached, anchoredEnd).expect(200);
    expect(response.body).toEqual({ ...before.end.body, data_status: 'stale' });
    expect(before.end.body.data_status).toBe('fresh');
  });

  it('answers each organization its own stale policy', async () => {
    const response = await read(uncached, anchoredMid).expect(200);
    expect(response.body).toEqual({ ...before.mid.body, data_status: 'stale' });
    expect(response.body.next_reset_at).not.toBe(before.end.body.next_reset_at);
  });

  it('computes next_reset_at of a stale answer for the current time, even across a reset', async () => {
    expect(before.spansReset.body).toMatchObject({ data_as_of: '2025-02-28T23:29:50.000Z', next_reset_at: '2025-02-28T23:30:00.000Z' });
    pinClock(uncached, '2025-02-28T23:30:10.000Z');
    const response = await read(uncached, spansReset).expect(200);
    expect(response.body).toMatchObject({ data_status: 'stale', data_as_of: '2025-02-28T23:29:50.000Z', next_reset_at: '2025-03-31T23:30:00.000Z' });
  });

  it('answers 503 SERVICE_UNAVAILABLE once the cached policy is older than the max staleness', async () => {
    pinClock(uncached, Date.parse(before.mid.body.data_as_of) + MAX_STALENESS_SECONDS * 1000);
    const response = await read(uncached, anchoredMid);
    expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    expect(response.body.detail).toContain('metering policy');
  });

  it('answers a read within the cache TTL from memory as fresh, without the database', async () => {
    const response = await read(cached, anchoredEnd).expect(200);
    expect(response.body).toEqual(before.cachedEnd.body);
    expect(response.body.data_status).toBe('fresh');
  });

  it('answers 503 when the organization has no cached policy (evicted from a full cache)', async () => {
    const response = await read(tiny, evicted);
    expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    expect(response.body.detail).toContain('metering policy');
  });

  it('answers 503 for a key that was never verified before the outage', async () => {
    const response = await read(uncached, neverRead);
    expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    expect(response.body.detail).toContain('API key');
  });

  it('answers 503 for a remembered key once its outage grace has passed', async () => {
    pinClock(uncached, closedAt + 3600 * 1000);
    const response = await read(uncached, anchoredEnd);
    expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    expect(response.body.detail).toContain('API key');
  });

  it('answers 503 on routes that cannot serve cached data', async () => {
    expectErrorBody(await uncached.http().get('/readyz'), 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
  });
});

describe('GET /api/openapi/v1/metering-policy with a database on a closed port', () => {
  it('answers 503 SERVICE_UNAVAILABLE, not 500', async () => {
    const unreachable = await openDatabase(testConfig({ DATABASE_URL: 'postgresql://root@127.0.0.1:1/unreachable' }));
    const testApp = await startTestApp(unreachable);
    try {
      const response = await testApp.http().get(PATH).set('Authorization', `Bearer wsk_${'A'.repeat(40)}`);
      expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    } finally {
      await testApp.close();
      await unreachable.close();
    }
  });
});
