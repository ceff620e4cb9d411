import { Logger } from '@nestjs/common';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { Response } from 'supertest';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ProbeModule } from './support/probe.module';
import { describeWithRedis, keysWithPrefix, OwnRedisServer, useTwoInstancesOnSharedRedis } from './support/redis';
import { createTenant, startTestApp, until, useTestDatabase, type TestApp, type TestTenant } from './support/test-app';

const LIMIT = 5;

function remaining(response: Response): number {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(response.headers['ratelimit']));
  if (!match) throw new Error(`no RateLimit header in the ${response.status} answer: ${JSON.stringify(response.headers)}`);
  return Number(match[1]);
}

// One database for the file's describe blocks, each with tenants of its own.
const fileDatabase = useTestDatabase();

describeWithRedis('rate limit shared through Redis', () => {
  const { redis, instances } = useTwoInstancesOnSharedRedis({
    database: fileDatabase,
    overrides: { RATE_LIMIT_PER_MINUTE: LIMIT },
    extraModules: [ProbeModule],
  });
  let database: Database;
  let first: TestApp;
  let second: TestApp;

  beforeAll(() => {
    ({ database, app: first, otherApp: second } = instances);
  });

  it('spends one budget per key across two instances, counting down in the RateLimit header, then 429 with Retry-After', async () => {
    const tenant = await createTenant(database);
    const seen: number[] = [];
    for (const instance of [first, first, first, second, second]) {
      const answer = await instance.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
      expect(answer.headers['ratelimit-policy']).toBe(`"default";q=${LIMIT};w=60`);
      seen.push(remaining(answer));
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);

    const refused = await second.http().get('/probe/quota-read').set('Authorization', tenant.bearer);
    expectErrorBody(refused, 429, 'RATE_LIMITED', 'too_many_requests');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit']).toBe(`"default";r=0;t=${retryAfter}`);
    expect(refused.headers['ratelimit-policy']).toBe(`"default";q=${LIMIT};w=60`);
    // Refused on the first instance too: the budget is the key's, wherever it calls.
    await first.http().post('/probe/directory-manage').set('Authorization', tenant.bearer).send({ text: 'x' }).expect(429);
    expect(Object.keys(refused.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);

    const counters = await redis.keys();
    expect(counters.some((name) => name.includes(`key:${tenant.apiKeyId}`))).toBe(true);
  });

  it("keeps per key a hits counter for the 60 s window and, once spent, a blocked mark for 60 s, under REDIS_KEY_PREFIX", async () => {
    const tenant = await createTenant(database);
    for (let i = 0; i <= LIMIT; i++) await first.http().get('/probe/quota-read').set('Authorization', tenant.bearer);
    const name = `${redis.keyPrefix}{default:key:${tenant.apiKeyId}:default}`;
    expect((await redis.keys()).filter((key) => key.includes(tenant.apiKeyId)).sort()).toEqual([`${name}:blocked`, `${name}:hits`]);
    for (const key of [`${name}:hits`, `${name}:blocked`]) {
      const ttl = await redis.client.pttl(key);
      expect({ key, expiresWithinAMinute: ttl > 0 && ttl <= 60_000 }).toEqual({ key, expiresWithinAMinute: true });
    }
  });

  it('never limits liveness and readiness, and sends them no rate-limit headers, even once the key is spent', async () => {
    const tenant = await createTenant(database);
    for (let i = 0; i <= LIMIT; i++) await first.http().get('/probe/quota-read').set('Authorization', tenant.bearer);
    await first.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(429);
    for (const instance of [first, second]) {
      for (let i = 0; i < 2 * LIMIT; i++) {
        for (const path of ['/healthz', '/readyz']) {
          const answer = await instance.http().get(path).set('Authorization', tenant.bearer).expect(200);
          expect(answer.headers['ratelimit']).toBeUndefined();
          expect(answer.headers['ratelimit-policy']).toBeUndefined();
          expect(answer.headers['retry-after']).toBeUndefined();
        }
      }
    }
  });
});

describeWithRedis('rate limit while Redis is away', () => {
  const server = useOwnRedisServer();
  let database: Database;
  let app: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = fileDatabase.database;
    app = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 3, REDIS_URL: server.redis.url, REDIS_KEY_PREFIX: 'wsa-test:' }, [ProbeModule]);
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await app?.close();
  });

  const call = () => app.http().get('/probe/quota-read').set('Authorization', tenant.bearer);

  it('keeps answering, limited in memory, logs it once, and counts in Redis again once it is back', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    try {
      expect(remaining(await call().expect(200))).toBe(2);
      const client = server.redis.client();
      expect(await keysWithPrefix(client, 'wsa-test:')).not.toEqual([]);
      client.disconnect();

      await server.redis.stop();
      const timings: number[] = [];
      const answers: number[] = [];
      for (let i = 0; i < 4; i++) {
        const started = performance.now();
        answers.push((await call()).status);
        timings.push(performance.now() - started);
      }
      // A fresh budget in this instance's memory: three more, then refused.
      expect(answers).toEqual([200, 200, 200, 429]);
      // Bounded by the command timeout (500 ms) even if the first one still finds the connection open.
      expect(Math.max(...timings)).toBeLessThan(1000);
      const fallbackWarnings = warn.mock.calls.filter(([message]) => String(message).startsWith('Redis unavailable'));
      expect(fallbackWarnings).toHaveLength(1);

      await server.redis.start();
      // The restarted Redis begins empty: the first request counted there is served, where memory refuses.
      await until(async () => (await call()).status === 200);
      const back = await call().expect(200);
      expect(remaining(back)).toBe(1);
      const restarted = server.redis.client();
      expect(await keysWithPrefix(restarted, 'wsa-test:')).not.toEqual([]);
      restarted.disconnect();
      expect(log.mock.calls.filter(([message]) => String(message).startsWith('Redis available again'))).toHaveLength(1);
      expect(warn.mock.calls.filter(([message]) => String(message).startsWith('Redis unavailable'))).toHaveLength(1);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it('waits at most the command timeout on a Redis that stops answering, and only one request a second does', async () => {
    tenant = await createTenant(database);
    await call().expect(200);
    server.redis.pause();
    try {
      const timings: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await call().expect(200);
        timings.push(performance.now() - started);
      }
      expect(timings[0]).toBeGreaterThanOrEqual(400);
      expect(timings[0]).toBeLessThan(1000);
      expect(Math.max(timings[1], timings[2])).toBeLessThan(250);
    } finally {
      server.redis.resume();
    }
    // Memory has now spent the budget (three there after one in Redis) and refuses; Redis, asked again
    // once the retry interval is over, still has room.
    await until(async () => (await call()).status === 200);
  });
});

describeWithRedis('rate limit when Redis is not there at start-up', () => {
  it('starts anyway, counting in memory, and counts in Redis once Redis answers', async () => {
    const { database } = fileDatabase;
    const late = await OwnRedisServer.onFreePort();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    let app: TestApp | undefined;
    try {
      app = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 2, REDIS_URL: late.url, REDIS_KEY_PREFIX: 'wsa-test:' }, [ProbeModule]);
      expect(warn.mock.calls.filter(([message]) => String(message).startsWith('Redis unavailable'))).toHaveLength(1);
      const tenant = await createTenant(database);
      const call = () => app!.http().get('/probe/quota-read').set('Authorization', tenant.bearer);
      expect([(await call()).status, (await call()).status, (await call()).status]).toEqual([200, 200, 429]);

      await late.start();
      await until(async () => (await call()).status === 200);
      const client = late.client();
      expect(await keysWithPrefix(client, 'wsa-test:')).not.toEqual([]);
      client.disconnect();
    } finally {
      warn.mockRestore();
      await app?.close();
      await late.stop();
    }
  });
});

describeWithRedis('rate limit while Redis is frozen, under concurrent requests', () => {
  const server = useOwnRedisServer();
  let database: Database;
  let app: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = fileDatabase.database;
    app = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 100_000, REDIS_URL: server.redis.url, REDIS_KEY_PREFIX: 'wsa-test:' }, [ProbeModule]);
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await app?.close();
  });

  // Counted by what was asked of Redis, not by how long answers took: on a loaded machine any
  // request can be slow, but only the breaker decides which requests wait on Redis.
  it('costs one command timeout when it freezes and then one request per retry interval, not every concurrent request', async () => {
    const CLIENTS = 8;
    const FROZEN_MS = 2600;
    await app.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
    const askedRedis = jest.spyOn(ThrottlerStorageRedisService.prototype, 'increment');
    server.redis.pause();
    const frozenAt = performance.now();
    const answers: { status: number; startedAt: number; endedAt: number }[] = [];
    let asked: number;
    try {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() - frozenAt < FROZEN_MS) {
            const startedAt = performance.now() - frozenAt;
            const { status } = await app.http().get('/probe/quota-read').set('Authorization', tenant.bearer);
            answers.push({ status, startedAt, endedAt: performance.now() - frozenAt });
          }
        }),
      );
    } finally {
      asked = askedRedis.mock.calls.length;
      askedRedis.mockRestore();
      server.redis.resume();
    }

    expect(answers.filter(({ status }) => status !== 200)).toEqual([]);
    // No request waits longer than the command timeout (500 ms), give or take the machine's load.
    expect(Math.max(...answers.map(({ startedAt, endedAt }) => endedAt - startedAt))).toBeLessThan(2000);
    // Redis was asked by the requests in flight when it froze (at most one per client; they are all
    // released by the first timeout), then by one probe per retry interval (1 s) — not by every
    // request, as each would be without the breaker.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(CLIENTS + Math.ceil(FROZEN_MS / 1000));
    expect(answers.length).toBeGreaterThan(asked);
  });
});

function useOwnRedisServer(): { redis: OwnRedisServer } {
  const context = {} as { redis: OwnRedisServer };
  beforeAll(async () => {
    context.redis = await OwnRedisServer.onFreePort();
    await context.redis.start();
  });
  afterAll(async () => {
    await context.redis?.stop();
  });
  return context;
}
