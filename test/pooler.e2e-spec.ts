import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { AdminService } from '../src/admin/admin.service';
import { Prisma } from '../src/generated/prisma/client';
import { IdempotencyPurger } from '../src/common/idempotency/idempotency-purger';
import type { AppConfig } from '../src/config/app-config';
import { type Database, openDatabase } from '../src/database/database';
import { UploadPurger } from '../src/modules/uploads/upload-purger';
import { expectErrorBody } from './support/error-body';
import { createTenant, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, until, type TestApp, type TestTenant } from './support/test-app';

// Three service instances whose pooled connections go through PgBouncer in transaction pooling mode
// (DATABASE_URL), with their LISTEN and migrations on the server itself (DATABASE_DIRECT_URL), as
// docs/operations.md ("Through PgBouncer") tells operators to run them. PGBOUNCER_URL is the
// pooler's address without a database (scripts/pgbouncer.sh start writes it); the file's own
// database (TEST_DATABASE_URL's copy) is reached through it under the same name. jest.config.js
// leaves this file out unless PGBOUNCER_URL is set; .ci/run sets it, empty when PgBouncer could
// not be started, and then, with CI=true, the file fails instead of skipping.
const POOLER = process.env.PGBOUNCER_URL || undefined;
const describeThroughPooler = POOLER || process.env.CI === 'true' ? describe : describe.skip;

const run = promisify(execFile);
const distDir = join(__dirname, '..', 'dist', 'src');
const API = '/api/openapi/v1';
const INSTANCES = 3;
// Fewer server connections than the instances' pools together: PgBouncer lends each server
// connection to many clients, one transaction at a time (scripts/pgbouncer.sh, 8 by default).
const POOL_SIZE = 6;
// The database's own default, so that a server connection the service's time zone did not reach
// would show times shifted by hours.
const SERVER_TIME_ZONE = 'America/New_York';

describeThroughPooler('Through PgBouncer in transaction mode: three instances, DATABASE_PREPARED_STATEMENTS=0', () => {
  let directUrl: string;
  let pooledUrl: string;
  let databaseName: string;
  let settings: Partial<AppConfig>;
  /** This process's own, on the server directly: set-up and checks. */
  let direct: Database;
  let databases: Database[];
  let instances: TestApp[];
  let tenant: TestTenant;

  beforeAll(async () => {
    if (!POOLER) throw new Error('PGBOUNCER_URL is needed and CI=true: start PgBouncer with scripts/pgbouncer.sh start (.ci/run does)');
    const server = testDatabaseUrl();
    if (!server) throw new Error('TEST_DATABASE_URL is needed: the pooler stands in front of PostgreSQL');
    directUrl = server;
    databaseName = decodeURIComponent(new URL(server).pathname.slice(1));
    const pooled = new URL(POOLER);
    pooled.pathname = `/${encodeURIComponent(databaseName)}`;
    pooledUrl = pooled.toString();
    await onServer(directUrl, (client) => client.query(`ALTER DATABASE ${client.escapeIdentifier(databaseName)} SET timezone TO '${SERVER_TIME_ZONE}'`));

    settings = {
      DATABASE_URL: pooledUrl,
      DATABASE_DIRECT_URL: directUrl,
      DATABASE_PREPARED_STATEMENTS: 0,
      DATABASE_POOL_SIZE: POOL_SIZE,
      // Every metering read goes to the database, so that an outage shows at once.
      METERING_CACHE_TTL_MS: 0,
      METERING_MAX_STALENESS_SECONDS: 3600,
      API_KEY_OUTAGE_GRACE_SECONDS: 3600,
    };
    direct = await openTestDatabase();
    databases = await Promise.all(Array.from({ length: INSTANCES }, () => openDatabase(testConfig(settings))));
    instances = await Promise.all(databases.map((database) => startTestApp(database, settings)));
    tenant = await createTenant(direct);
  });

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await Promise.all((databases ?? []).map((database) => database.close()));
    await direct?.close();
  });

  /** Sends request `index` of a batch to instance index mod 3, as a load balancer spreads them. */
  const spread = (count: number, send: (via: TestApp, index: number) => Promise<Response>) =>
    Promise.all(Array.from({ length: count }, (_, index) => send(instances[index % INSTANCES], index)));

  const createDepartment = (via: TestApp, body: object, key: string) =>
    via.http().post(`${API}/departments`).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send(body);

  const readPolicy = (via: TestApp, key: TestTenant = tenant) => via.http().get(`${API}/metering-policy`).set('Authorization', key.bearer);

  it("goes through the pooler: PgBouncer holds the instances' connections to the database, in transaction mode", async () => {
    await spread(INSTANCES, (via) => readPolicy(via).expect(200));
    const pools = await onPooler((client) => client.query<{ database: string; pool_mode: string }>('SHOW POOLS'));
    expect(pools.rows.find((row) => row.database === databaseName)).toMatchObject({ pool_mode: 'transaction' });
    const clients = await onPooler((client) => client.query<{ database: string }>('SHOW CLIENTS'));
    expect(clients.rows.filter((row) => row.database === databaseName).length).toBeGreaterThanOrEqual(INSTANCES);
  });

  it('creates exactly once under 30 clients retrying one Idempotency-Key over three instances', async () => {
    const key = `pooler-${Date.now()}`;
    const body = { name: 'Through the pooler', external_id: 'pooler-once' };
    const retryUntilAnswered = async (via: TestApp): Promise<Response> => {
      for (;;) {
        const response = await createDepartment(via, body, key);
        const inProgress = response.status === 409 && response.body.code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS';
        if (!inProgress && response.status !== 503) return response;
        expect(response.headers['retry-after']).toMatch(/^\d+$/);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const answers = await spread(30, (via) => retryUntilAnswered(via));
    expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(201));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(await direct.prisma.department.count({ where: { organizationId: tenant.organizationId, externalId: 'pooler-once' } })).toBe(1);
  });

  it('gives 21 siblings created at once over three instances the distinct orders 1 to 21', async () => {
    const parent = (await createDepartment(instances[0], { name: `Parent ${Date.now()}` }, `parent-${Date.now()}`).expect(201)).body;
    const responses = await spread(21, (via, index) => createDepartment(via, { name: `Child ${index}`, parent_id: parent.department_id }, `child-${Date.now()}-${index}`));
    expect(responses.map((response) => response.status)).toEqual(Array(21).fill(201));
    expect(responses.map((response) => response.body.order as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, index) => index + 1));
  });

  it('lets exactly one of 12 concurrent PATCHes with the same expected_revision win over three instances', async () => {
    const suite = await new AdminService(direct.sql).createExpertSuite(tenant.organizationId, `pooler-suite-${Date.now()}`);
    const responses = await spread(12, (via, index) =>
      via.http().patch(`${API}/expert-suites/${suite.id}`).set('Authorization', tenant.bearer).send({ expected_revision: 1, display_name: `writer ${index}` }),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, ...Array(11).fill(409)]);
    for (const conflict of responses.filter((response) => response.status === 409)) expectErrorBody(conflict, 409, 'REVISION_CONFLICT', 'conflict');
    const winner = responses.find((response) => response.status === 200)!;
    const stored = await direct.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
    expect({ revision: stored.revision, displayName: stored.displayName }).toEqual({ revision: 2n, displayName: winner.body.display_name });
  });

  it('writes and reads times as the instants they are, whatever time zone the server connection it lands on was left in', async () => {
    // Another client of the pooler leaves the server connections it is lent in Tokyo time, while
    // the instances write and read; the database's own default is New York (beforeAll).
    const other = new Client({ connectionString: pooledUrl });
    await other.connect();
    let stop = false;
    const meddling = (async () => {
      await other.query("SET TIME ZONE 'Asia/Tokyo'");
      while (!stop) await other.query('SELECT pg_sleep(0.002)');
    })();
    try {
      const suites = await Promise.all(Array.from({ length: 6 }, (_, index) => new AdminService(direct.sql).createExpertSuite(tenant.organizationId, `tz-${Date.now()}-${index}`)));
      const before = Date.now();
      const patched = await spread(6, (via, index) => via.http().patch(`${API}/expert-suites/${suites[index].id}`).set('Authorization', tenant.bearer).send({ display_name: `moved ${index}` }));
      const policies = await spread(6, (via) => readPolicy(via));
      const after = Date.now();
      for (const response of [...patched, ...policies]) expect(response.status).toBe(200);
      for (const response of patched) {
        expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(response.body.updated_at)).toBeLessThanOrEqual(after + 1000);
        // The instant stored, read without any time zone: seconds since the epoch.
        const [stored] = await direct.prisma.$queryRaw<Array<{ epoch_ms: number }>>`
          SELECT (extract(epoch FROM updated_at) * 1000)::float8 AS epoch_ms FROM expert_suites WHERE id = ${response.body.id}::uuid`;
        expect(stored.epoch_ms).toBe(Date.parse(response.body.updated_at));
      }
      for (const response of policies) {
        expect(Date.parse(response.body.data_as_of)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(response.body.data_as_of)).toBeLessThanOrEqual(after + 1000);
      }
    } finally {
      stop = true;
      await meddling;
      await other.end();
    }
  });

  it('sends no named prepared statement: 300 concurrent statements succeed with 0, and named ones break behind this pooler', async () => {
    const statements = (database: Database) =>
      Promise.allSettled(Array.from({ length: 300 }, (_, index) => database.sql.queries.query(Prisma.sql`SELECT ${index}::int AS n`)));
    const unnamed = await statements(databases[0]);
    expect(unnamed.filter((outcome) => outcome.status === 'rejected')).toEqual([]);

    // The check above can fail: with the default (named statements) the same load through the
    // same pooler fails. Each of 40 client connections prepares "wsa_1" once, on whichever of
    // PgBouncer's 8 server connections it is lent, so some server connection is asked to prepare
    // it twice ("already exists"), and a client lent another one later finds none ("does not exist").
    const named = await openDatabase(testConfig({ ...settings, DATABASE_PREPARED_STATEMENTS: 100, DATABASE_POOL_SIZE: 40 }));
    try {
      const outcomes = await statements(named);
      const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      expect(failures.length).toBeGreaterThan(0);
      expect(String(failures[0].reason?.message ?? failures[0].reason)).toMatch(/prepared statement "wsa_\d+" (does not exist|already exists)/);
    } finally {
      await named.close();
    }
  });

  it('cancels statements past their deadline through the pooler (its cancel request), and the pooler keeps serving', async () => {
    const short = await openDatabase(testConfig({ ...settings, DATABASE_STATEMENT_TIMEOUT_MS: 200 }));
    try {
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => short.sql.queries.query(Prisma.sql`SELECT pg_sleep(3)`)));
        expect(outcomes.map((outcome) => outcome.status === 'rejected' && outcome.reason.cause?.originalCode)).toEqual(Array(6).fill('57014'));
        expect(performance.now() - started).toBeLessThan(2500);
      }
    } finally {
      await short.close();
    }
    // PgBouncer still runs (1.18 exits when a cancelling client hangs up before it: see DeadlineClient).
    await onPooler((client) => client.query('SHOW VERSION'));
    for (const response of await spread(INSTANCES, (via) => readPolicy(via))) expect(response.status).toBe(200);
  });

  it('runs migrations over DATABASE_DIRECT_URL: the migration runs in the session holding the migration lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsa-pooler-migrations-'));
    mkdirSync(join(dir, '99990101000000_pooler_probe'));
    writeFileSync(
      join(dir, '99990101000000_pooler_probe', 'migration.sql'),
      `CREATE TABLE pooler_probe AS SELECT inet_client_port() AS client_port,
         (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted) AS advisory_locks_held;`,
    );
    expect(await databases[1].migrate(dir)).toEqual(['99990101000000_pooler_probe']);
    const [probe] = await direct.prisma.$queryRawUnsafe<Array<{ client_port: number; advisory_locks_held: bigint }>>('SELECT client_port, advisory_locks_held FROM pooler_probe');
    expect(probe.advisory_locks_held).toBe(1n);
    // Not one of PgBouncer's server connections (their local ports are the server's client ports).
    const servers = await onPooler((client) => client.query<{ local_port: number }>('SHOW SERVERS'));
    expect(servers.rows.length).toBeGreaterThan(0);
    expect(servers.rows.map((row) => Number(row.local_port))).not.toContain(probe.client_port);
    // And released: no session anywhere still holds it.
    const [left] = await direct.prisma.$queryRawUnsafe<Array<{ count: bigint }>>(
      `SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = current_database()`,
    );
    expect(left.count).toBe(0n);
  });

  it('runs npm run db:migrate and the CLI unchanged with the pooler settings', async () => {
    const env = { ...process.env, DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: directUrl, DATABASE_PREPARED_STATEMENTS: '0', LOG_LEVEL: 'error' };
    const migrate = await run('node', [join(distDir, 'database', 'migrate.main.js')], { env });
    expect(migrate.stdout).toBe('PostgreSQL is up to date.\n');
    const cli = (...args: string[]) => run('node', [join(distDir, 'cli', 'main.js'), ...args], { env }).then(({ stdout }) => JSON.parse(stdout));
    const organization = await cli('org', 'create', '--name', 'Made through the pooler');
    const key = await cli('apikey', 'create', '--org', organization.id, '--scopes', 'admin.v1.quota.read');
    expect(key).toMatchObject({ id: expect.any(String), key: expect.stringMatching(/^wsk_/) });
    expect((await cli('apikey', 'list', '--org', organization.id)).api_keys.map((listed: { id: string }) => listed.id)).toEqual([key.id]);
  });

  it('refuses a key revoked with the CLI through the pooler with the next request on every instance', async () => {
    const env = { ...process.env, DATABASE_URL: pooledUrl, DATABASE_DIRECT_URL: directUrl, DATABASE_PREPARED_STATEMENTS: '0', LOG_LEVEL: 'error' };
    for (let round = 0; round < 2; round++) {
      const key = await new AdminService(direct.sql).createApiKey(tenant.organizationId, ['admin.v1.quota.read']);
      const bearer = { ...tenant, apiKeyId: key.id, apiKey: key.key, bearer: `Bearer ${key.key}` };
      for (const instance of instances) await readPolicy(instance, bearer).expect(200);
      await run('node', [join(distDir, 'cli', 'main.js'), 'apikey', 'revoke', '--id', key.id], { env });
      for (const instance of instances) expectErrorBody(await readPolicy(instance, bearer), 401, 'UNAUTHENTICATED', 'unauthorized');
    }
  });

  it('purges on every instance at once through the pooler', async () => {
    const past = new Date(Date.now() - 60_000);
    await direct.prisma.idempotencyRecord.createMany({
      data: Array.from({ length: 30 }, (_, index) => ({
        apiKeyId: tenant.apiKeyId,
        key: `pooler-expired-${index}`,
        fingerprint: '0'.repeat(64),
        statusCode: 200,
        responseBody: '{}',
        expiresAt: past,
      })),
    });
    const purged = await Promise.all(instances.map((instance) => instance.app.get(IdempotencyPurger).purge()));
    expect(purged.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(30);
    expect(await direct.prisma.idempotencyRecord.count({ where: { apiKeyId: tenant.apiKeyId, key: { startsWith: 'pooler-expired-' } } })).toBe(0);
    await Promise.all(instances.map((instance) => instance.app.get(UploadPurger).purge()));
  });

  it('answers the metering policy stale on every instance while the pooler refuses the database, and fresh again after', async () => {
    const fresh = await spread(INSTANCES, (via) => readPolicy(via).expect(200));
    for (const response of fresh) expect(response.body.data_status).toBe('fresh');
    // PgBouncer's console: refuse new connections to the database and drop the open ones.
    await onPooler(async (client) => {
      await client.query(`DISABLE ${client.escapeIdentifier(databaseName)}`);
      await client.query(`KILL ${client.escapeIdentifier(databaseName)}`);
    });
    try {
      const stale = await spread(INSTANCES * 2, (via) => readPolicy(via));
      stale.forEach((response, index) => {
        expect(response.status).toBe(200);
        // Each instance answers what it last read itself.
        expect(response.body).toEqual({ ...fresh[index % INSTANCES].body, data_status: 'stale' });
      });
      const write = await createDepartment(instances[0], { name: 'During the outage' }, `outage-${Date.now()}`);
      expectErrorBody(write, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    } finally {
      await onPooler(async (client) => {
        await client.query(`ENABLE ${client.escapeIdentifier(databaseName)}`);
        await client.query(`RESUME ${client.escapeIdentifier(databaseName)}`);
      });
    }
    await until(async () => (await readPolicy(instances[0])).body.data_status === 'fresh');
    for (const response of await spread(INSTANCES, (via) => readPolicy(via).expect(200))) expect(response.body.data_status).toBe('fresh');
  });

  async function onPooler<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const console = new URL(POOLER!);
    console.pathname = '/pgbouncer';
    return onServer(console.toString(), work);
  }
});

async function onServer<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
