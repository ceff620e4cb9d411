import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ProbeModule } from './support/probe.module';
import { describeWithRedis, useTwoInstancesOnSharedRedis } from './support/redis';
import { rawRequest } from './support/raw-http';
import { createTenant, listenOnLoopback, startTestApp, useTestDatabase, type TestApp, type TestTenant } from './support/test-app';

/** 2 KiB of gzip that inflates to 1 MiB of JSON: the probe's body of issue 21. */
const INFLATING_BODY = gzipSync(Buffer.from(`{"text":"${'a'.repeat(1024 * 1024)}"}`));

/**
 * Sends a request whose body never arrives in full: the head, declaring `INFLATING_BODY.length`
 * bytes, and only the first half of them. Resolves with the status line and body the service
 * answers while the body is still incomplete, or undefined when it answers nothing within
 * `waitMs` (it is waiting for the rest of the body, as a service reading it must).
 */
function answerWhileBodyIncomplete(baseUrl: string, headers: Array<[string, string]>, waitMs = 1000): Promise<{ status: number; body: any } | undefined> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => finish(undefined), waitMs);
    const finish = (answer: { status: number; body: any } | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const headEnd = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received)?.[1];
      if (headEnd === -1 || length === undefined || received.length < headEnd + 4 + Number(length)) return;
      finish({ status: Number(received.slice(9, 12)), body: JSON.parse(received.slice(headEnd + 4)) });
    });
    const head = [
      'POST /probe/directory-manage HTTP/1.1',
      `Host: ${hostname}:${port}`,
      'Content-Type: application/json',
      'Content-Encoding: gzip',
      `Content-Length: ${INFLATING_BODY.length}`,
      ...headers.map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(INFLATING_BODY.subarray(0, INFLATING_BODY.length >> 1));
  });
}

// One database for the file's describe blocks, each with tenants of its own.
const fileDatabase = useTestDatabase();

describe('authentication and the rate limit are decided before the body is read', () => {
  let database: Database;
  let testApp: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    database = fileDatabase.database;
    testApp = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 2 }, [ProbeModule]);
    baseUrl = await listenOnLoopback(testApp);
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('answers 401 to a request without a valid key before its body has even arrived', async () => {
    for (const headers of [[], [['Authorization', 'Bearer wsk_000000000000000000000000000000000000000']]] as Array<Array<[string, string]>>) {
      const answer = await answerWhileBodyIncomplete(baseUrl, headers);
      expect(answer).toEqual({ status: 401, body: expect.objectContaining({ code: 'UNAUTHENTICATED' }) });
    }
    // Unreadable bodies too: they would be 400 or 415 once read.
    const garbled = await testApp.http().post('/probe/directory-manage').set('Content-Type', 'application/json').send('{"text":');
    expectErrorBody(garbled, 401, 'UNAUTHENTICATED', 'unauthorized');
    const latin1 = await testApp.http().post('/probe/directory-manage').set('Content-Type', 'application/json; charset=iso-8859-1').send('{}');
    expectErrorBody(latin1, 401, 'UNAUTHENTICATED', 'unauthorized');
  });

  it('reads and inflates the body of a valid key within its budget: it waits for the whole body', async () => {
    const tenant = await createTenant(database);
    expect(await answerWhileBodyIncomplete(baseUrl, [['Authorization', tenant.bearer]], 500)).toBeUndefined();
    // Sent whole, it is inflated: just over the 1 MiB limit.
    const whole = await rawRequest(baseUrl, {
      method: 'POST',
      path: '/probe/directory-manage',
      headers: [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip'], ['Authorization', tenant.bearer]],
      body: INFLATING_BODY,
    });
    expectErrorBody(whole, 413, 'PAYLOAD_TOO_LARGE', 'payload_too_large');
  });

  it('answers 429 to a key over its rate limit before its body has arrived', async () => {
    const tenant = await createTenant(database);
    await testApp.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
    await testApp.http().get('/probe/quota-read').set('Authorization', tenant.bearer).expect(200);
    const answer = await answerWhileBodyIncomplete(baseUrl, [['Authorization', tenant.bearer]]);
    expect(answer).toEqual({ status: 429, body: expect.objectContaining({ code: 'RATE_LIMITED' }) });
  });

  it('answers 403 to a key without the scope before its body has arrived', async () => {
    const tenant = await createTenant(database, ['admin.v1.quota.read']);
    const answer = await answerWhileBodyIncomplete(baseUrl, [['Authorization', tenant.bearer]]);
    expect(answer).toEqual({ status: 403, body: expect.objectContaining({ code: 'INSUFFICIENT_SCOPE' }) });
  });
});

describe('requests that fail authentication are limited per client address', () => {
  const LIMIT = 3;
  let database: Database;
  let testApp: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = fileDatabase.database;
    // The tests connect from 127.0.0.1, so they stand in for a trusted proxy that sets X-Forwarded-For.
    testApp = await startTestApp(database, { AUTH_FAILURE_LIMIT_PER_MINUTE: LIMIT, TRUST_PROXY: 'loopback' }, [ProbeModule]);
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await testApp.close();
  });

  const fromAddress = (address: string, authorization?: string) => {
    const get = testApp.http().get('/probe/quota-read').set('X-Forwarded-For', address);
    return authorization ? get.set('Authorization', authorization) : get;
  };

  it(`answers 401 up to ${LIMIT} times a minute per address, then 429 RATE_LIMITED with Retry-After`, async () => {
    const address = '203.0.113.10';
    for (let i = 0; i < LIMIT; i++) {
      expectErrorBody(await fromAddress(address, i % 2 ? 'Bearer wsk_unknown' : undefined), 401, 'UNAUTHENTICATED', 'unauthorized');
    }
    for (const authorization of [undefined, 'Bearer wsk_unknown', 'Basic Zm9vOmJhcg==']) {
      const refused = await fromAddress(address, authorization);
      expectErrorBody(refused, 429, 'RATE_LIMITED', 'too_many_requests');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('counts each client address on its own and never refuses a valid key', async () => {
    const address = '203.0.113.20';
    for (let i = 0; i <= LIMIT; i++) await fromAddress(address);
    await fromAddress(address).expect(429);
    await fromAddress(address, tenant.bearer).expect(200);
    await fromAddress('203.0.113.21').expect(401);
  });
});

describeWithRedis('the limit on failed authentication shared through Redis', () => {
  const LIMIT = 4;
  const { redis, instances } = useTwoInstancesOnSharedRedis({
    database: fileDatabase,
    overrides: { AUTH_FAILURE_LIMIT_PER_MINUTE: LIMIT, TRUST_PROXY: 'loopback' },
    extraModules: [ProbeModule],
  });
  let first: TestApp;
  let second: TestApp;

  beforeAll(() => {
    ({ app: first, otherApp: second } = instances);
  });

  it('spends one budget per address across instances', async () => {
    const address = '198.51.100.30';
    for (const instance of [first, second, first, second]) {
      await instance.http().get('/probe/quota-read').set('X-Forwarded-For', address).expect(401);
    }
    await first.http().get('/probe/quota-read').set('X-Forwarded-For', address).expect(429);
    await second.http().get('/probe/quota-read').set('X-Forwarded-For', address).expect(429);
    expect((await redis.keys()).some((key) => key.includes(`ip:${address}`))).toBe(true);
  });
});
