import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ProbeModule } from './support/probe.module';
import { createTenant, openTestDatabase, startTestApp, type TestApp } from './support/test-app';

type DocumentedResponse = { headers?: Record<string, unknown> };
type Operation = { operationId: string; 'x-required-scope'?: string; responses: Record<string, DocumentedResponse> };

describe('rate limit per API key', () => {
  let database: Database;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 3 }, [ProbeModule]);
  });

  afterAll(async () => {
    await testApp.close();
    await database.close();
  });

  it('answers 429 RATE_LIMITED with Retry-After once a key spends its budget, without touching other keys', async () => {
    const spender = await createTenant(database);
    const bystander = await createTenant(database);
    for (let i = 0; i < 3; i++) {
      await testApp.http().get('/probe/quota-read').set('Authorization', spender.bearer).expect(200);
    }
    const limited = await testApp.http().get('/probe/quota-read').set('Authorization', spender.bearer);
    expectErrorBody(limited, 429, 'RATE_LIMITED', 'too_many_requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The budget is per key, shared by every operation.
    await testApp.http().post('/probe/directory-manage').set('Authorization', spender.bearer).send({ text: 'x' }).expect(429);
    await testApp.http().get('/probe/quota-read').set('Authorization', bystander.bearer).expect(200);
  });

  it('states the policy and the remaining budget in the IETF RateLimit headers, not in X-RateLimit-*', async () => {
    const tenant = await createTenant(database);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await testApp.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
      expect(answer.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
      remaining.push(String(answer.headers['ratelimit']));
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    }
    expect(remaining.map((value) => /^"default";r=(\d+);t=(?:60|59)$/.exec(value)?.[1])).toEqual(['2', '1', '0']);
    const limited = await testApp.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(429);
    expect(limited.headers['ratelimit']).toBe(`"default";r=0;t=${String(limited.headers['retry-after'])}`);
  });

  it('counts in each instance\'s own memory without REDIS_URL: two instances allow a key twice the limit', async () => {
    const other = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 3 }, [ProbeModule]);
    try {
      const tenant = await createTenant(database);
      for (const instance of [testApp, other]) {
        for (let i = 0; i < 3; i++) await instance.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
        await instance.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(429);
      }
    } finally {
      await other.close();
    }
  });

  it('never limits liveness and readiness probes', async () => {
    for (let i = 0; i < 10; i++) {
      await testApp.http().get('/healthz').expect(200);
      await testApp.http().get('/readyz').expect(200);
    }
  });

  it('documents the RateLimit headers on every answer of every operation that needs a key but 401, and Retry-After on its 429 and 503', async () => {
    const document = (await testApp.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.values(document.paths).flatMap((pathItem) => Object.values(pathItem));
    const scoped = operations.filter((operation) => operation['x-required-scope'] !== undefined);
    expect(scoped.length).toBeGreaterThanOrEqual(8);
    for (const operation of scoped) {
      for (const [status, response] of Object.entries(operation.responses)) {
        // Every 503 carries Retry-After (docs/api-conventions.md), as every 429 does.
        const withRetryAfter = status === '429' || status === '503';
        const expected = status === '401' ? [] : withRetryAfter ? ['RateLimit', 'RateLimit-Policy', 'Retry-After'] : ['RateLimit', 'RateLimit-Policy'];
        const documented = Object.keys(response.headers ?? {}).filter((name) => ['RateLimit', 'RateLimit-Policy', 'Retry-After'].includes(name));
        expect({ operation: operation.operationId, status, headers: documented.sort() }).toEqual({ operation: operation.operationId, status, headers: expected });
      }
    }
    for (const operation of operations.filter((operation) => operation['x-required-scope'] === undefined)) {
      for (const response of Object.values(operation.responses)) expect(response.headers?.['RateLimit']).toBeUndefined();
    }
  });
});
