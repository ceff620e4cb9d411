import { randomBytes } from 'node:crypto';
import type { Database } from '../src/database/database';
import { UPLOAD_CHUNK_BYTES } from '../src/modules/uploads/database-upload-storage';
import { UploadAdmission } from '../src/modules/uploads/upload-admission';
import { expectErrorBody } from './support/error-body';
import { ONE_PIXEL_PNG } from './support/images';
import { createTenant, listenOnLoopback, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, until, type TestApp, type TestTenant } from './support/test-app';
import { packageOf, partialUpload, pngOf, stored, upload } from './support/uploads';

const MIB = 1024 * 1024;
const onPostgres = testDatabaseUrl() !== undefined;

describe('bounded uploads', () => {
  let database: Database;
  let tenant: TestTenant;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  beforeEach(async () => {
    tenant = await createTenant(database);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await database.close();
  });

  const start = async (overrides: Parameters<typeof startTestApp>[1]) => {
    const app = await startTestApp(database, overrides);
    apps.push(app);
    return app;
  };

  describe('upload limits of one instance', () => {
    it('answers 503 with Retry-After past the uploads in flight, before reading the body, and takes uploads again once one ends', async () => {
      const app = await start({ UPLOADS_IN_FLIGHT_LIMIT: 2 });
      const base = await listenOnLoopback(app);
      const zip = await packageOf(256 * 1024);
      const holding = await Promise.all([partialUpload(base, tenant, 'package', zip, 1000), partialUpload(base, tenant, 'icon', pngOf(4096), 1000)]);
      await until(() => app.app.get(UploadAdmission).usage().inFlight === 2);

      const refused = await upload(app, tenant, 'icon', ONE_PIXEL_PNG);
      expectErrorBody(refused, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.detail).toMatch(/receiving 2 uploads/);

      holding[0].socket.destroy();
      await until(() => app.app.get(UploadAdmission).usage().inFlight === 1);
      await upload(app, tenant, 'icon', ONE_PIXEL_PNG).expect(201);
      holding[1].socket.destroy();
      await until(() => app.app.get(UploadAdmission).usage().inFlight === 0);
      expect(await stored(database, tenant.organizationId)).toMatchObject({ uploads: 1 });
    });

    it('answers 503 with Retry-After when the bytes held in memory would pass the buffer limit, and keeps nothing', async () => {
      const app = await start({ UPLOAD_BUFFER_LIMIT_BYTES: MIB, ICON_UPLOAD_LIMIT_BYTES: 4 * MIB });
      const refused = await upload(app, tenant, 'icon', pngOf(2 * MIB));
      expectErrorBody(refused, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
      expect(refused.headers['retry-after']).toBe('1');
      expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
      expect(app.app.get(UploadAdmission).usage()).toEqual({ inFlight: 0, bytesHeld: 0 });
      await upload(app, tenant, 'icon', pngOf(MIB / 2)).expect(201);
    });

    // On PostgreSQL a package (kind before file) goes to the database piece by piece; the embedded
    // database holds it in memory, where the same buffer limit refuses it.
    it(`${onPostgres ? 'streams a package larger than the buffer limit into the database' : 'holds a package in memory on the embedded database, within the buffer limit'}`, async () => {
      const app = await start({ UPLOAD_BUFFER_LIMIT_BYTES: MIB });
      const zip = await packageOf(3 * MIB);
      const response = await upload(app, tenant, 'package', zip);
      if (onPostgres) {
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({ size: zip.length, package: { name: 'code-review' } });
        expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 1, chunks: Math.ceil(zip.length / UPLOAD_CHUNK_BYTES), bytes: zip.length });
      } else {
        expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
        expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
      }
      expect(app.app.get(UploadAdmission).usage()).toEqual({ inFlight: 0, bytesHeld: 0 });
    });

    // A streamed package's transaction lasts as long as its body arrives: the request bounds it
    // (UPLOAD_STALL_TIMEOUT_MS), not TRANSACTION_TIMEOUT_MS, which would cut a slow client's upload.
    // Only PostgreSQL streams, and only its pool keeps transaction deadlines.
    (onPostgres ? it : it.skip)('keeps a streamed package whose body arrives over longer than TRANSACTION_TIMEOUT_MS (PostgreSQL)', async () => {
      const shortTransactions = await openTestDatabase(testConfig({ TRANSACTION_TIMEOUT_MS: 200 }));
      try {
        const app = await startTestApp(shortTransactions, { TRANSACTION_TIMEOUT_MS: 200, UPLOAD_STALL_TIMEOUT_MS: 5000 });
        apps.push(app);
        const base = await listenOnLoopback(app);
        const zip = await packageOf(512 * 1024);
        const slow = await partialUpload(base, tenant, 'package', zip, 256 * 1024);
        await new Promise((resolve) => setTimeout(resolve, 600));
        slow.finish();
        expect(await slow.answer).toMatch(/^HTTP\/1\.1 201 /);
        expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 1, chunks: Math.ceil(zip.length / UPLOAD_CHUNK_BYTES), bytes: zip.length });
      } finally {
        await Promise.all(apps.splice(0).map((app) => app.close()));
        await shortTransactions.close();
      }
    });

    it('refuses a streamed package that is not a zip, or too large, with the same errors as a held one, and keeps nothing of it', async () => {
      const app = await start({ PACKAGE_UPLOAD_LIMIT_BYTES: 2 * MIB });
      const notZip = await upload(app, tenant, 'package', randomBytes(300 * 1024));
      expectErrorBody(notZip, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(notZip.body.details).toEqual({ field: 'file', reason: 'invalid_archive' });
      const tooLarge = await upload(app, tenant, 'package', randomBytes(3 * MIB));
      expectErrorBody(tooLarge, 413, 'PAYLOAD_TOO_LARGE', 'payload_too_large');
      expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
    });

    it.each(['package', 'icon'] as const)('answers 408 and closes the connection when the body of an upload (%s) stalls, and keeps nothing of it', async (kind) => {
      const app = await start({ UPLOAD_STALL_TIMEOUT_MS: 400 });
      const base = await listenOnLoopback(app);
      const file = kind === 'package' ? await packageOf(MIB) : pngOf(256 * 1024);
      const started = performance.now();
      const stalled = await partialUpload(base, tenant, kind, file, 200 * 1024);
      const answer = await stalled.answer;
      expect(performance.now() - started).toBeGreaterThanOrEqual(400);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
      await until(() => app.app.get(UploadAdmission).usage().inFlight === 0);
      expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
      await upload(app, tenant, kind, kind === 'package' ? await packageOf(1024) : ONE_PIXEL_PNG).expect(201);
    });
  });

  describe('the storage quota of an organization', () => {
    it('refuses an upload past the quota with 413 UPLOAD_QUOTA_EXCEEDED and keeps nothing of it; other organizations are not affected', async () => {
      const zip = await packageOf(100 * 1024);
      const app = await start({ UPLOAD_STORAGE_QUOTA_BYTES: 2 * zip.length + ONE_PIXEL_PNG.length });
      await upload(app, tenant, 'package', zip).expect(201);
      await upload(app, tenant, 'package', zip).expect(201);
      for (const [kind, file] of [['package', zip], ['icon', pngOf(1024)]] as const) {
        const refused = await upload(app, tenant, kind, file);
        expectErrorBody(refused, 413, 'UPLOAD_QUOTA_EXCEEDED', 'payload_too_large');
        expect(refused.body.detail).toContain(`${2 * zip.length} are stored`);
      }
      await upload(app, tenant, 'icon', ONE_PIXEL_PNG).expect(201);
      expect(await stored(database, tenant.organizationId)).toMatchObject({ uploads: 3, bytes: 2 * zip.length + ONE_PIXEL_PNG.length });

      const other = await createTenant(database);
      await upload(app, other, 'package', zip).expect(201);
    });

    it('holds across two instances uploading for one organization at once', async () => {
      const zip = await packageOf(64 * 1024);
      const quota = 5 * zip.length;
      const instances = await Promise.all([start({ UPLOAD_STORAGE_QUOTA_BYTES: quota }), start({ UPLOAD_STORAGE_QUOTA_BYTES: quota })]);
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, index) => upload(instances[index % 2], tenant, 'package', zip).then((response) => response.status)));
      expect(statuses.filter((status) => status === 201)).toHaveLength(5);
      expect(statuses.filter((status) => status === 413)).toHaveLength(7);
      expect(await stored(database, tenant.organizationId)).toEqual({ uploads: 5, chunks: 5 * Math.ceil(zip.length / UPLOAD_CHUNK_BYTES), bytes: quota });
    });
  });
});
