import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { AdminService } from '../src/admin/admin.service';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { createTenant, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, type TestApp, type TestTenant } from './support/test-app';

const API = '/api/openapi/v1';
const onPostgres = testDatabaseUrl() !== undefined;

/** Connection faults need a server whose backends can be terminated: PostgreSQL only. */
(onPostgres ? describe : describe.skip)('database faults (PostgreSQL)', () => {
  let database: Database;
  let app: TestApp;
  let tenant: TestTenant;
  let suiteId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    app = await startTestApp(database, { DATABASE_POOL_SIZE: 4, METERING_CACHE_TTL_MS: 0 });
    tenant = await createTenant(database);
    suiteId = (await new AdminService(database.sql).createExpertSuite(tenant.organizationId, `faults-${randomUUID().slice(0, 8)}`)).id;
  });

  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const create = (key: string) =>
    app.http().post(`${API}/departments`).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send({ name: `Dept ${key}` });
  const send = (i: number, key: string): request.Test => {
    if (i % 3 === 0) return app.http().get(`${API}/metering-policy`).set('Authorization', tenant.bearer);
    if (i % 3 === 1) return app.http().patch(`${API}/expert-suites/${suiteId}`).set('Authorization', tenant.bearer).send({ description: `d${i}` });
    return create(key);
  };

  it('answers 2xx or a clean 503 while backends are terminated mid-burst, loses no create, and recovers without a restart', async () => {
    const killer = new Client({ connectionString: testDatabaseUrl() });
    await killer.connect();
    let terminated = 0;
    let bursting = true;
    const killing = (async () => {
      while (bursting) {
        const { rows } = await killer.query<{ killed: boolean }>(
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        terminated += rows.filter((row) => row.killed).length;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    })();

    const run = randomUUID().slice(0, 8);
    const keys = Array.from({ length: 240 }, (_, i) => `${run}-${i}`);
    const responses: request.Response[] = [];
    for (let start = 0; start < keys.length; start += 24) {
      responses.push(...(await Promise.all(keys.slice(start, start + 24).map((key, j) => send(start + j, key)))));
    }
    bursting = false;
    await killing;
    await killer.end();

    expect(terminated).toBeGreaterThan(0);
    const statuses = new Set(responses.map((response) => response.status));
    expect([...statuses].filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
    for (const response of responses.filter((r) => r.status === 503)) expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');

    // Every create, answered or not, is retried with its key: each key ends with exactly one department.
    const createKeys = keys.filter((_, i) => i % 3 === 2);
    for (const key of createKeys) await create(key).expect(201);
    const departments = await database.prisma.department.findMany({ where: { organizationId: tenant.organizationId }, select: { name: true } });
    expect(departments.map((d) => d.name).sort()).toEqual(createKeys.map((key) => `Dept ${key}`).sort());

    // Recovered: a new round of every operation succeeds.
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => send(i, `${run}-after-${i}`)));
    expect(after.map((response) => response.status).sort()).toEqual([...Array(4).fill(200), ...Array(4).fill(200), ...Array(4).fill(201)].sort());
  });

  it('queues requests when every pooled connection is busy instead of calling the database unreachable', async () => {
    // The pool is the database's, so a small one of its own; its wait is long enough for all 150 on
    // a slow machine (the wait's bound is the next test's).
    const settings = { DATABASE_POOL_SIZE: 2, DATABASE_POOL_TIMEOUT_MS: 30_000 };
    const smallPool = await openTestDatabase(testConfig(settings));
    const small = await startTestApp(smallPool, settings);
    try {
      const run = randomUUID().slice(0, 8);
      const responses = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          small.http().post(`${API}/departments`).set('Authorization', tenant.bearer).set('Idempotency-Key', `${run}-${i}`).send({ name: `Queued ${run} ${i}` }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(150).fill(201));
    } finally {
      await small.close();
      await smallPool.close();
    }
  });

  it('answers 503 with Retry-After, called busy and not unreachable, when no pooled connection frees up within the wait', async () => {
    const settings = { DATABASE_POOL_SIZE: 1, DATABASE_POOL_TIMEOUT_MS: 300 };
    const onePool = await openTestDatabase(testConfig(settings));
    const busy = await startTestApp(onePool, settings);
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const holder = onePool.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        holding();
        await released;
      });
      await held;
      const response = await busy.http().patch(`${API}/expert-suites/${suiteId}`).set('Authorization', tenant.bearer).send({ description: 'busy' });
      release();
      await holder;
      expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body.detail).toMatch(/busy/);
      expect(response.body.detail).not.toMatch(/unreachable/);
      await busy.http().patch(`${API}/expert-suites/${suiteId}`).set('Authorization', tenant.bearer).send({ description: 'free again' }).expect(200);
    } finally {
      await busy.close();
      await onePool.close();
    }
  });
});
