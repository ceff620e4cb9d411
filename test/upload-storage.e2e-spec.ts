import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { Client } from 'pg';
import { AdminService } from '../src/admin/admin.service';
import type { Database } from '../src/database/database';
import { UPLOAD_CHUNK_BYTES } from '../src/modules/uploads/database-upload-storage';
import { UploadStorage } from '../src/modules/uploads/upload-storage';
import { expectErrorBody } from './support/error-body';
import { ONE_PIXEL_PNG } from './support/images';
import { createTenant, listenOnLoopback, openTestDatabase, startTestApp, testDatabaseUrl, useTwoInstances, type TestApp, type TestTenant } from './support/test-app';
import { buildZip, packageEntries } from './support/zip-builder';

const UPLOADS = '/api/openapi/v1/uploads';
const contentPath = (uploadId: string) => `${UPLOADS}/${uploadId}/content`;
const suitePath = (suiteId: string) => `/api/openapi/v1/expert-suites/${suiteId}`;

/** A PNG as far as detection goes (its signature), `size` bytes long, the rest random. */
const pngOf = (size: number) => Buffer.concat([ONE_PIXEL_PNG, randomBytes(size - ONE_PIXEL_PNG.length)]);

const upload = (app: TestApp, tenant: TestTenant, kind: 'icon' | 'package', file: Buffer) =>
  app.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', kind).attach('file', file, kind === 'icon' ? 'icon.png' : 'suite.zip');

const chunkSizes = async (database: Database, uploadId: string) =>
  (await database.prisma.uploadChunk.findMany({ where: { uploadId }, orderBy: { ordinal: 'asc' } })).map((chunk) => chunk.data.length);

describe('upload bytes in the database, shared by every instance', () => {
  const instances = useTwoInstances();
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await createTenant(instances.database);
  });

  const newSuite = () => new AdminService(instances.database.sql).createExpertSuite(tenant.organizationId, `suite-${randomUUID().slice(0, 8)}`);

  it('serves an icon uploaded through one instance through the other, and applies it to a suite there', async () => {
    const created = await upload(instances.app, tenant, 'icon', ONE_PIXEL_PNG).expect(201);
    const served = await instances.otherApp.http().get(contentPath(created.body.upload_id)).buffer(true).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.from(served.body).equals(ONE_PIXEL_PNG)).toBe(true);

    const suite = await newSuite();
    const applied = await instances.otherApp.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send({ icon_upload_id: created.body.upload_id }).expect(200);
    expect(new URL(applied.body.icon_url).pathname).toBe(contentPath(created.body.upload_id));
    await instances.app.http().get(contentPath(created.body.upload_id)).expect(200);
  });

  it('applies a package uploaded through one instance through the other', async () => {
    const created = await upload(instances.app, tenant, 'package', await buildZip(packageEntries())).expect(201);
    const suite = await newSuite();
    const applied = await instances.otherApp.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send({ upload_id: created.body.upload_id }).expect(200);
    expect(applied.body).toMatchObject({ has_package: true, version: '2.1.0', command_count: 2 });
  });

  it('stores an icon larger than one chunk in numbered chunks and serves exactly the bytes uploaded', async () => {
    const icon = pngOf(2 * UPLOAD_CHUNK_BYTES + 12_345);
    const created = await upload(instances.app, tenant, 'icon', icon).expect(201);
    expect(await chunkSizes(instances.database, created.body.upload_id)).toEqual([UPLOAD_CHUNK_BYTES, UPLOAD_CHUNK_BYTES, 12_345]);

    const served = await instances.otherApp.http().get(contentPath(created.body.upload_id)).buffer(true).expect(200);
    expect(served.headers['content-length']).toBe(String(icon.length));
    expect(Buffer.from(served.body).equals(icon)).toBe(true);
  });

  it('keeps a package larger than one chunk byte for byte, readable through the other instance', async () => {
    const zip = await buildZip([...packageEntries(), { name: 'assets/noise.bin', content: randomBytes(3 * UPLOAD_CHUNK_BYTES) }]);
    const created = await upload(instances.app, tenant, 'package', zip).expect(201);
    expect(await chunkSizes(instances.database, created.body.upload_id)).toHaveLength(Math.ceil(zip.length / UPLOAD_CHUNK_BYTES));

    const stream = await instances.otherApp.app.get(UploadStorage).read(created.body.upload_id, created.body.size);
    const stored = await buffer(stream!);
    expect(stored.equals(zip)).toBe(true);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(created.body.sha256);
  });
});

describe('database faults while storing or serving an upload', () => {
  let database: Database;
  let testApp: TestApp;
  let tenant: TestTenant;
  let databaseOpen: boolean;

  /** The fault: the app's database is closed under it, as a pool that can no longer connect. */
  const closeDatabase = async () => {
    databaseOpen = false;
    await database.close();
  };

  beforeEach(async () => {
    database = await openTestDatabase();
    databaseOpen = true;
    // Large enough icons for a response that cannot fit in the socket buffers at once.
    testApp = await startTestApp(database, { ICON_UPLOAD_LIMIT_BYTES: 32 * 1024 * 1024 });
    tenant = await createTenant(database);
  });

  afterEach(async () => {
    await testApp.close();
    if (databaseOpen) await database.close();
  });

  it('answers a clean 503 when the database is gone as an icon is asked for', async () => {
    const created = await upload(testApp, tenant, 'icon', pngOf(UPLOAD_CHUNK_BYTES + 1)).expect(201);
    await closeDatabase();
    const response = await testApp.http().get(contentPath(created.body.upload_id));
    expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
  });

  it('breaks the response off, never ending it as if whole, when the database goes away in the middle of an icon', async () => {
    const icon = pngOf(24 * 1024 * 1024);
    const created = await upload(testApp, tenant, 'icon', icon).expect(201);
    const base = await listenOnLoopback(testApp);

    const response = await new Promise<IncomingMessage>((resolve, reject) => get(`${base}${contentPath(created.body.upload_id)}`, resolve).on('error', reject));
    response.pause();
    expect(response.statusCode).toBe(200);
    // The server stops reading chunks once the socket is full; then the database goes away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await closeDatabase();

    let received = 0;
    const ended = await new Promise<'end' | 'broken'>((resolve) => {
      response.on('data', (chunk: Buffer) => (received += chunk.length));
      response.on('end', () => resolve('end'));
      response.on('error', () => resolve('broken'));
      response.on('close', () => resolve(response.complete ? 'end' : 'broken'));
      response.resume();
    });
    expect(ended).toBe('broken');
    expect(response.complete).toBe(false);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(icon.length);
  });

  // The lock that holds the app's statement still while its connection is cut needs a second session: PostgreSQL only.
  const itOnPostgres = testDatabaseUrl() ? it : it.skip;

  /** Cuts the connection of the first session found waiting for a lock with a statement starting `statement`. */
  async function terminateWaiting(killer: Client, statement: string): Promise<void> {
    for (let attempt = 0; attempt < 250; attempt++) {
      const { rows } = await killer.query<{ killed: boolean }>(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'`,
        [statement],
      );
      if (rows.some((row) => row.killed)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`No session waited with ${statement}`);
  }

  async function withTableLocked(mode: string, work: (killer: Client) => Promise<void>): Promise<void> {
    const locker = new Client({ connectionString: testDatabaseUrl() });
    const killer = new Client({ connectionString: testDatabaseUrl() });
    await Promise.all([locker.connect(), killer.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE upload_chunks IN ${mode} MODE`);
      await work(killer);
    } finally {
      await locker.query('ROLLBACK');
      await Promise.all([locker.end(), killer.end()]);
    }
  }

  itOnPostgres('answers a clean 503 when the connection breaks while the bytes are written, and keeps nothing of the upload', async () => {
    const uploadsOfTenant = () => database.prisma.upload.count({ where: { organizationId: tenant.organizationId } });
    await withTableLocked('EXCLUSIVE', async (killer) => {
      const uploading = upload(testApp, tenant, 'icon', pngOf(3 * UPLOAD_CHUNK_BYTES)).then((response) => response);
      await terminateWaiting(killer, 'INSERT INTO upload_chunks');
      expectErrorBody(await uploading, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    });
    expect(await uploadsOfTenant()).toBe(0);
    await upload(testApp, tenant, 'icon', ONE_PIXEL_PNG).expect(201);
    expect(await uploadsOfTenant()).toBe(1);
  });

  itOnPostgres('answers a clean 503 when the connection breaks while the first chunk is read', async () => {
    const created = await upload(testApp, tenant, 'icon', ONE_PIXEL_PNG).expect(201);
    await withTableLocked('ACCESS EXCLUSIVE', async (killer) => {
      const serving = testApp.http().get(contentPath(created.body.upload_id)).then((response) => response);
      await terminateWaiting(killer, 'FROM upload_chunks WHERE');
      expectErrorBody(await serving, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    });
    await testApp.http().get(contentPath(created.body.upload_id)).expect(200);
  });
});
