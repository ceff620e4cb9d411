import { Agent, get } from 'node:http';
import { MetricsServer } from '../src/common/metrics/metrics-server';
import { Metrics } from '../src/common/metrics/metrics';
import { Readiness } from '../src/common/lifecycle/readiness';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ProbeModule } from './support/probe.module';
import { createTenant, listenOnLoopback, openTestDatabase, startTestApp, useTestApp, type TestApp, type TestTenant } from './support/test-app';
import { pngOf, upload } from './support/uploads';

const API = '/api/openapi/v1';
const MIB = 1024 * 1024;

/** A 503 in the error body with the Retry-After the contract gives its cause. */
function expectUnavailable(response: Parameters<typeof expectErrorBody>[0], retryAfter: string): void {
  expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
  expect(response.headers['retry-after']).toBe(retryAfter);
}

/** The Connection header of the answer to a GET sent on a keep-alive connection. */
function connectionHeader(url: string): Promise<string | undefined> {
  const agent = new Agent({ keepAlive: true });
  return new Promise<string | undefined>((resolve, reject) => {
    get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.headers.connection));
    }).on('error', reject);
  }).finally(() => agent.destroy());
}

/**
 * Every place that answers 503, provoked one by one (waits on a busy pool or a held lock need a
 * second PostgreSQL session: database-faults and lock-waits check theirs).
 */
describe('every 503 carries Retry-After', () => {
  describe('while the database is unavailable', () => {
    let database: Database;
    let app: TestApp;
    /** Verified before the outage on a route that serves during one: its key is remembered. */
    let remembered: TestTenant;
    let neverVerified: TestTenant;

    beforeAll(async () => {
      database = await openTestDatabase();
      // No policy may be answered stale: a remembered key's read reaches the policy's own 503.
      app = await startTestApp(database, { METERING_CACHE_TTL_MS: 0, METERING_MAX_STALENESS_SECONDS: 0, API_KEY_OUTAGE_GRACE_SECONDS: 3600, METRICS_PORT: 0 }, [ProbeModule]);
      [remembered, neverVerified] = await Promise.all([createTenant(database), createTenant(database)]);
      await app.http().get(`${API}/metering-policy`).set('Authorization', remembered.bearer).expect(200);
      await database.close();
    });

    afterAll(async () => {
      await app.close();
    });

    it('answers a key that cannot be checked 503 with Retry-After: 5', async () => {
      const response = await app.http().get(`${API}/departments`).set('Authorization', neverVerified.bearer);
      expectUnavailable(response, '5');
      expect(response.body.detail).toContain('API key');
    });

    it('answers the metering policy, when nothing cached may be served, 503 with Retry-After: 5', async () => {
      const response = await app.http().get(`${API}/metering-policy`).set('Authorization', remembered.bearer);
      expectUnavailable(response, '5');
      expect(response.body.detail).toContain('metering policy');
    });

    it('answers readiness 503 with Retry-After: 5', async () => {
      expectUnavailable(await app.http().get('/readyz'), '5');
    });

    it('answers an HTTP 503 raised anywhere else with Retry-After: 5', async () => {
      expectUnavailable(await app.http().get('/probe/unavailable'), '5');
    });

    it('answers a scrape whose metrics cannot be collected 503 with Retry-After: 5', async () => {
      jest.spyOn(app.app.get(Metrics).registry, 'metrics').mockRejectedValueOnce(new Error('collector failed'));
      const response = await fetch(`http://127.0.0.1:${app.app.get(MetricsServer).port}/metrics`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error: 'service_unavailable' });
    });

    it('answers readiness 503 with Retry-After: 5 while the instance drains, and closes the connection of every answer', async () => {
      // Over a keep-alive connection (supertest asks for Connection: close itself, so it cannot tell).
      const baseUrl = await listenOnLoopback(app);
      expect(await connectionHeader(`${baseUrl}/healthz`)).toBe('keep-alive');
      app.app.get(Readiness).startDraining();
      const response = await app.http().get('/readyz');
      expectUnavailable(response, '5');
      expect(response.body.detail).toContain('shutting down');
      expect(await connectionHeader(`${baseUrl}/readyz`)).toBe('close');
      expect(await connectionHeader(`${baseUrl}/healthz`)).toBe('close');
    });
  });

  describe('while the database is up', () => {
    const context = useTestApp({ overrides: { UPLOAD_BUFFER_LIMIT_BYTES: MIB, ICON_UPLOAD_LIMIT_BYTES: 4 * MIB } });

    it('answers an upload the instance has no room for 503 with Retry-After: 1', async () => {
      expectUnavailable(await upload(context.app, context.tenant, 'icon', pngOf(2 * MIB)), '1');
    });

    it('answers readiness 200 without Retry-After', async () => {
      const response = await context.http().get('/readyz').expect(200);
      expect(response.headers['retry-after']).toBeUndefined();
    });
  });
});
