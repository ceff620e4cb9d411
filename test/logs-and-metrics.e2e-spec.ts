import { randomUUID } from 'node:crypto';
import { Metrics } from '../src/common/metrics/metrics';
import { MetricsServer } from '../src/common/metrics/metrics-server';
import { expectErrorBody } from './support/error-body';
import { captureLogs } from './support/log-capture';
import { ProbeModule } from './support/probe.module';
import { createTenant, useTestApp, useTestDatabase, type TestApp } from './support/test-app';

const METERING = '/api/openapi/v1/metering-policy';
const DEPARTMENTS = '/api/openapi/v1/departments';

/** The value of one sample of a Prometheus text exposition, 0 when it is absent. */
function sample(exposition: string, series: string): number {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(testApp: TestApp): Promise<string> {
  const port = testApp.app.get(MetricsServer).port;
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

// One database for the file's apps, each with a tenant of its own.
const database = useTestDatabase();

describe('logs and metrics', () => {
  // The first app of this file: nestjs-pino sends events logged outside a request to it.
  const logs = captureLogs();
  const fixture = useTestApp({ database, overrides: { LOG_LEVEL: 'log', LOG_FORMAT: 'json', METRICS_PORT: 0 }, extraModules: [ProbeModule], logDestination: logs.destination });

  describe('request lines', () => {
    it('writes one JSON line per request: request id, method, route pattern, status, latency, key and organization', async () => {
      await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).set('X-Request-Id', 'fields-1').expect(200);
      const suite = await fixture.admin.createExpertSuite(fixture.tenant.organizationId, 'Logged');
      await fixture.http().get(`/api/openapi/v1/expert-suites/${suite.id}`).set('Authorization', fixture.tenant.bearer).set('X-Request-Id', 'fields-2').expect(200);

      const lines = logs.entries().filter((entry) => entry.request_id === 'fields-1');
      expect(lines).toEqual([
        {
          level: 'info',
          time: expect.any(Number),
          pid: process.pid,
          hostname: expect.any(String),
          request_id: 'fields-1',
          method: 'GET',
          route: METERING,
          status: 200,
          duration_ms: expect.any(Number),
          api_key_id: fixture.tenant.apiKeyId,
          organization_id: fixture.tenant.organizationId,
          msg: 'request completed',
        },
      ]);
      expect(lines[0].duration_ms).toBeGreaterThan(0);
      const withId = logs.entries().find((entry) => entry.request_id === 'fields-2');
      expect(withId).toMatchObject({ route: '/api/openapi/v1/expert-suites/:resourceId', status: 200 });
    });

    it('writes duration_ms in milliseconds with two decimals', async () => {
      for (let i = 0; i < 5; i++) await fixture.http().get('/healthz').set('X-Request-Id', `duration-${i}`).expect(200);
      const written = logs
        .text()
        .split('\n')
        .filter((line) => line.includes('"request_id":"duration-'))
        .map((line) => /"duration_ms":([^,}]+)/.exec(line)?.[1]);
      expect(written).toHaveLength(5);
      for (const duration of written) expect(duration).toMatch(/^\d+(\.\d{1,2})?$/);
      // Rounded to hundredths, not to whole milliseconds: five durations all whole are a 1 in 10^10 chance.
      expect(written.some((duration) => duration!.includes('.'))).toBe(true);
    });

    it('names the path without its query string when no route matched, and has no key fields without a key', async () => {
      await fixture.http().get('/no/such/path?token=secret-value').set('X-Request-Id', 'unmatched-1').expect(404);
      const line = logs.entries().find((entry) => entry.request_id === 'unmatched-1');
      expect(line).toMatchObject({ method: 'GET', route: '/no/such/path', status: 404 });
      expect(line).not.toHaveProperty('api_key_id');
      expect(logs.text()).not.toContain('secret-value');
    });

    it('gets a line for a request refused before routing (malformed JSON body)', async () => {
      await fixture
        .http()
        .post(DEPARTMENTS)
        .set('Authorization', fixture.tenant.bearer)
        .set('Content-Type', 'application/json')
        .set('X-Request-Id', 'bad-json-1')
        .send('{"name": ')
        .expect(400);
      expect(logs.entries().filter((entry) => entry.request_id === 'bad-json-1')).toEqual([expect.objectContaining({ method: 'POST', route: DEPARTMENTS, status: 400 })]);
    });

    it('says "request errored" for a request answered 5xx, at info like the others', async () => {
      await fixture.http().get('/probe/boom').set('X-Request-Id', 'errored-1').expect(500);
      expect(logs.entries().filter((entry) => entry.request_id === 'errored-1')).toEqual([
        expect.objectContaining({ level: 'info', msg: 'request errored', method: 'GET', route: '/probe/boom', status: 500 }),
      ]);
    });

    it('never logs the Authorization header, the key or a body, of the request or of the response', async () => {
      const marker = `Body marker ${randomUUID()}`;
      await fixture
        .http()
        .post(DEPARTMENTS)
        .set('Authorization', fixture.tenant.bearer)
        .set('Idempotency-Key', 'secret-check-1')
        .set('X-Request-Id', 'secret-check-1')
        .send({ name: marker })
        .expect(201);
      await fixture.http().get(METERING).set('Authorization', `Bearer wsk_${'Z'.repeat(40)}`).expect(401);

      expect(logs.entries().some((entry) => entry.request_id === 'secret-check-1')).toBe(true);
      const text = logs.text();
      expect(text).not.toContain(fixture.tenant.apiKey);
      expect(text).not.toContain(fixture.tenant.apiKey.slice(4));
      expect(text).not.toContain('Z'.repeat(40));
      expect(text).not.toMatch(/bearer/i);
      expect(text).not.toMatch(/authorization/i);
      expect(text).not.toContain(marker);
    });
  });

  it('logs application events through the same logger, with their context', () => {
    expect(logs.entries()).toContainEqual(expect.objectContaining({ level: 'info', context: 'Metrics', msg: expect.stringMatching(/^Metrics: GET \/metrics on port \d+$/) }));
  });

  describe('metrics', () => {
    it('counts requests by route pattern and status, and their latency by route', async () => {
      const series = `{method="GET",route="${METERING}"`;
      const before = await scrape(fixture.app);
      for (let i = 0; i < 3; i++) await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).expect(200);
      await fixture.http().get(METERING).expect(401);
      const after = await scrape(fixture.app);

      expect(sample(after, `http_requests_total${series},status="200"}`) - sample(before, `http_requests_total${series},status="200"}`)).toBe(3);
      expect(sample(after, `http_requests_total${series},status="401"}`) - sample(before, `http_requests_total${series},status="401"}`)).toBe(1);
      expect(sample(after, `http_request_duration_seconds_count${series}}`) - sample(before, `http_request_duration_seconds_count${series}}`)).toBe(4);
      expect(sample(after, `http_request_duration_seconds_bucket{le="+Inf",method="GET",route="${METERING}"}`)).toBe(sample(after, `http_request_duration_seconds_count${series}}`));
      expect(sample(after, `http_request_duration_seconds_sum${series}}`)).toBeGreaterThan(sample(before, `http_request_duration_seconds_sum${series}}`));
    });

    it('labels requests no route matched as one series, not by their paths', async () => {
      await fixture.http().get(`/unknown/${randomUUID()}`).expect(404);
      const exposition = await scrape(fixture.app);
      expect(sample(exposition, 'http_requests_total{method="GET",route="(unmatched)",status="404"}')).toBeGreaterThanOrEqual(1);
      expect(exposition).not.toContain('/unknown/');
    });

    it('labels a request refused before routing (an invalid Host) as unmatched, not by its path', async () => {
      const unmatched = 'http_requests_total{method="GET",route="(unmatched)",status="400"}';
      const before = sample(await scrape(fixture.app), unmatched);
      await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).set('Host', 'a b').expect(400);
      const after = await scrape(fixture.app);
      expect(sample(after, unmatched) - before).toBe(1);
      expect(sample(after, `http_requests_total{method="GET",route="${METERING}",status="400"}`)).toBe(0);
    });

    it('times requests in buckets from 1 ms to 10 s', async () => {
      await fixture.http().get('/healthz').expect(200);
      const bounds = [...(await scrape(fixture.app)).matchAll(/^http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/healthz"\}/gm)].map((match) => match[1]);
      expect(bounds[0]).toBe('0.001');
      expect(bounds.slice(-2)).toEqual(['10', '+Inf']);
    });

    it("serves prom-client's default process and Node.js metrics", async () => {
      const exposition = await scrape(fixture.app);
      expect(exposition).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(exposition).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+/m);
      expect(exposition).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
      expect(exposition).toMatch(/^nodejs_gc_duration_seconds_count\{kind="\w+"\} \d+/m);
    });

    it('counts API key and metering policy cache hits and misses', async () => {
      const fresh = await createTenant(fixture.database);
      const before = await scrape(fixture.app);
      await fixture.http().get(METERING).set('Authorization', fresh.bearer).expect(200);
      await fixture.http().get(METERING).set('Authorization', fresh.bearer).expect(200);
      const after = await scrape(fixture.app);
      const delta = (series: string) => sample(after, series) - sample(before, series);
      expect(delta('api_key_cache_lookups_total{result="miss"}')).toBe(1);
      expect(delta('api_key_cache_lookups_total{result="hit"}')).toBe(1);
      expect(delta('metering_policy_cache_lookups_total{result="miss"}')).toBe(1);
      expect(delta('metering_policy_cache_lookups_total{result="hit"}')).toBe(1);
    });

    it('counts idempotency replays', async () => {
      const before = sample(await scrape(fixture.app), 'idempotency_replays_total');
      const send = () => fixture.http().post(DEPARTMENTS).set('Authorization', fixture.tenant.bearer).set('Idempotency-Key', 'replay-count-1').send({ name: 'Replayed' });
      expect((await send()).status).toBe(201);
      const replay = await send();
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(sample(await scrape(fixture.app), 'idempotency_replays_total') - before).toBe(1);
    });

    it('reports the PostgreSQL pool, and no pool for the embedded database', async () => {
      const exposition = await scrape(fixture.app);
      if (fixture.database.kind === 'postgres') {
        expect(exposition).toMatch(/^db_pool_connections\{state="in_use"\} \d+$/m);
        expect(exposition).toMatch(/^db_pool_connections\{state="idle"\} \d+$/m);
        expect(exposition).toMatch(/^db_pool_waiting_requests \d+$/m);
      } else {
        expect(exposition).not.toContain('db_pool_');
      }
      expect(exposition).toMatch(/^process_cpu_seconds_total /m);
    });

    it('is not served on the API port', async () => {
      expectErrorBody(await fixture.http().get('/metrics'), 404, 'NOT_FOUND', 'not_found');
    });

    it('answers anything but GET /metrics on the metrics port with 404', async () => {
      const port = fixture.app.app.get(MetricsServer).port;
      for (const [method, path] of [['GET', METERING], ['POST', '/metrics']]) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
        expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', error: 'not_found' });
      }
    });
  });
});

describe('rate-limit refusals', () => {
  const fixture = useTestApp({ database, overrides: { RATE_LIMIT_PER_MINUTE: 2, METRICS_PORT: 0 } });

  it('are counted', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(sample(await scrape(fixture.app), 'rate_limit_refusals_total')).toBe(1);
  });
});

describe('without METRICS_PORT', () => {
  const fixture = useTestApp({ database });

  it('starts no metrics server', () => {
    expect(fixture.app.app.get(MetricsServer).port).toBeUndefined();
  });

  it('neither times nor counts requests', async () => {
    await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).expect(200);
    const exposition = await fixture.app.app.get(Metrics).registry.metrics();
    expect(exposition).not.toMatch(/^http_requests_total\{/m);
    expect(exposition).not.toMatch(/^http_request_duration_seconds_count\{/m);
  });
});

describe('LOG_FORMAT=text', () => {
  const logs = captureLogs();
  const fixture = useTestApp({ database, overrides: { LOG_LEVEL: 'log', LOG_FORMAT: 'text' }, logDestination: logs.destination });

  it('writes one readable line per request, with the same fields', async () => {
    await fixture.http().get('/healthz').set('X-Request-Id', 'text-1').expect(200);
    const lines = logs.text().split('\n').filter((line) => line.includes('text-1'));
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] INFO: request completed \{"request_id":"text-1","method":"GET","route":"\/healthz","status":200,"duration_ms":[\d.]+\}$/),
    ]);
  });
});

describe('LOG_LEVEL=warn', () => {
  const logs = captureLogs();
  const fixture = useTestApp({ database, overrides: { LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }, logDestination: logs.destination });

  it('writes no request lines, and still answers with the request id', async () => {
    const answered = await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).set('X-Request-Id', 'quiet-1').expect(200);
    expect(answered.headers['x-request-id']).toBe('quiet-1');
    await fixture.http().get('/no/such/path').set('X-Request-Id', 'quiet-2').expect(404);
    expect(logs.text()).not.toContain('quiet-');
  });
});
