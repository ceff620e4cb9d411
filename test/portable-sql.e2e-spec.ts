import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AdminService } from '../src/admin/admin.service';
import { openDatabase, type Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { createTenant, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, until, type TestApp, type TestTenant } from './support/test-app';
import { packageOf, upload } from './support/uploads';

const API = '/api/openapi/v1';
const onPostgres = testDatabaseUrl() !== undefined;
const ROLE = `wsa_no_advisory_${process.pid}`;

async function asSuperuser<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The service runs as a role that may not call any advisory lock function in this test file's
 * database (pg_catalog is per database, so the REVOKE stays here): a correctness path that still
 * took one would fail with 42501. As the distributed engines lack them (docs/scaling.md).
 */
(onPostgres ? describe : describe.skip)('portable SQL: every write path works with advisory locks forbidden (PostgreSQL)', () => {
  let database: Database;
  let roleDatabases: Database[];
  let instances: TestApp[];
  let tenant: TestTenant;
  let roleUrl: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    await asSuperuser(async (client) => {
      await client.query(`DROP ROLE IF EXISTS ${ROLE}`);
      await client.query(`CREATE ROLE ${ROLE} LOGIN`);
      await client.query(`GRANT USAGE ON SCHEMA public TO ${ROLE}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${ROLE}`);
      const { rows } = await client.query<{ fn: string }>(`SELECT oid::regprocedure::text AS fn FROM pg_proc WHERE proname LIKE 'pg%advisory%'`);
      expect(rows.length).toBeGreaterThanOrEqual(16);
      for (const { fn } of rows) await client.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM PUBLIC`);
    });
    const url = new URL(testDatabaseUrl()!);
    url.username = ROLE;
    roleUrl = url.toString();
    // Two instances, each with its own pool, as the role (not migrated by it: the schema is there).
    const settings = { DATABASE_URL: roleUrl, UPLOAD_STORAGE_QUOTA_BYTES: 10_000_000 };
    roleDatabases = [await openDatabase(testConfig(settings)), await openDatabase(testConfig(settings))];
    instances = await Promise.all(roleDatabases.map((roleDatabase) => startTestApp(roleDatabase, settings)));
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await Promise.all((roleDatabases ?? []).map((roleDatabase) => roleDatabase.close()));
    await database?.close();
    await asSuperuser(async (client) => {
      await client.query(`DROP OWNED BY ${ROLE}`);
      await client.query(`DROP ROLE IF EXISTS ${ROLE}`);
    });
  });

  it('refuses the advisory lock functions to the role (the check can fail)', async () => {
    const client = new Client({ connectionString: roleUrl });
    await client.connect();
    try {
      await expect(client.query('SELECT pg_try_advisory_xact_lock(1)')).rejects.toMatchObject({ code: '42501' });
      await expect(client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['x'])).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
  });

  it('creates, replays and refuses concurrent duplicates over two instances, and orders siblings', async () => {
    const create = (via: TestApp, key: string, name: string, parentId?: string) =>
      via.http().post(`${API}/departments`).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send({ name, ...(parentId ? { parent_id: parentId } : {}) });
    const key = randomUUID();
    const racing = await Promise.all(Array.from({ length: 16 }, (_, index) => create(instances[index % 2], key, 'Raced')));
    expect(racing.filter((response) => response.status === 201 && response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const response of racing.filter((r) => r.status !== 201)) expectErrorBody(response, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'conflict');
    const replay = await create(instances[1], key, 'Raced').expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    const parent = replay.body.department_id as string;
    const siblings = await Promise.all(Array.from({ length: 12 }, (_, index) => create(instances[index % 2], randomUUID(), `Child ${index}`, parent)));
    expect(siblings.map((response) => response.status)).toEqual(Array(12).fill(201));
    expect(siblings.map((response) => response.body.order as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  });

  it('keeps uploads within the quota and updates a suite under its row lock', async () => {
    const zip = await packageOf(4 * 1024);
    const statuses = await Promise.all(Array.from({ length: 6 }, (_, index) => upload(instances[index % 2], tenant, 'package', zip).then((response) => response.status)));
    expect(statuses).toEqual(Array(6).fill(201));

    const suite = await new AdminService(database.sql).createExpertSuite(tenant.organizationId, `portable-${randomUUID().slice(0, 8)}`);
    const patches = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        instances[index % 2].http().patch(`${API}/expert-suites/${suite.id}`).set('Authorization', tenant.bearer).send({ display_name: `Name ${index}` }),
      ),
    );
    expect(patches.map((response) => response.status)).toEqual(Array(6).fill(200));
  });

  it('revokes a key across both instances', async () => {
    const other = await createTenant(database);
    for (const instance of instances) await instance.http().get(`${API}/metering-policy`).set('Authorization', other.bearer).expect(200);
    await new AdminService(database.sql).revokeApiKey(other.apiKeyId);
    // The NOTIFY reaches each instance's listener (on the role's connection) a moment after the commit.
    for (const instance of instances) await until(async () => (await instance.http().get(`${API}/metering-policy`).set('Authorization', other.bearer)).status === 401);
    for (const instance of instances) expectErrorBody(await instance.http().get(`${API}/metering-policy`).set('Authorization', other.bearer), 401, 'UNAUTHENTICATED', 'unauthorized');
  });

  it('leaves the migrations their session lock on the direct connection, under a role that may take it', async () => {
    const migrating = await openTestDatabase(testConfig());
    try {
      expect(await migrating.migrate()).toEqual([]);
    } finally {
      await migrating.close();
    }
  });
});
