import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminService } from '../src/admin/admin.service';
import { parseCommand, runCommand } from '../src/cli/cli';
import { openDatabase, type Database } from '../src/database/database';
import { defaultMigrationsDir } from '../src/database/migrator';
import type { Prisma } from '../src/generated/prisma/client';
import { UPLOAD_CHUNK_BYTES } from '../src/modules/uploads/database-upload-storage';
import { readPackage } from '../src/modules/uploads/package-reader';
import { ONE_PIXEL_PNG } from './support/images';
import { createTenant, openTestDatabase, startTestApp, testConfig, type TestApp, type TestTenant } from './support/test-app';
import { buildZip, packageEntries } from './support/zip-builder';

const contentPath = (uploadId: string) => `/api/openapi/v1/uploads/${uploadId}/content`;

describe('cli uploads import: files of the release that kept uploads on disk, into the database', () => {
  let database: Database;
  let testApp: TestApp;
  let admin: AdminService;
  let tenant: TestTenant;
  let uploadDir: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database);
    admin = new AdminService(database.sql);
    tenant = await createTenant(database);
    uploadDir = mkdtempSync(join(tmpdir(), 'wsa-old-uploads-'));
  });

  afterAll(async () => {
    await testApp.close();
    // Other files on a shared PostgreSQL must not meet these rows (the import goes through every upload).
    await database.prisma.organization.delete({ where: { id: tenant.organizationId } });
    await database.close();
  });

  /** An upload as the disk-storage release made it: the row with its storage key, the file at UPLOAD_DIR/<key>. */
  async function oldUpload(kind: 'icon' | 'package', bytes: Buffer, file: Buffer | null = bytes): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = `${tenant.organizationId}/${id}`;
    await database.prisma.upload.create({
      data: {
        id,
        organizationId: tenant.organizationId,
        kind,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        contentType: kind === 'icon' ? 'image/png' : 'application/zip',
        storageKey: key,
        manifest: kind === 'package' ? ((await readPackage(bytes)) as unknown as Prisma.InputJsonValue) : undefined,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    if (file) {
      mkdirSync(join(uploadDir, tenant.organizationId), { recursive: true });
      writeFileSync(join(uploadDir, key), file);
    }
    return { id, key };
  }

  async function importFiles(from = uploadDir): Promise<{ code: number; report: Record<string, unknown>; stderr: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(parseCommand(['uploads', 'import', '--from', from]), admin, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, report: out[0] === undefined ? {} : JSON.parse(out[0]), stderr: err.join('\n') };
  }

  const ours = (keys: unknown) => (keys as Array<string | { storage_key: string }>).filter((entry) => JSON.stringify(entry).includes(tenant.organizationId));
  const chunks = (uploadId: string) => database.prisma.uploadChunk.count({ where: { uploadId } });

  it('moves each file into the database once, reports the missing and mismatched ones, and the icons are then served and applied', async () => {
    const iconBytes = Buffer.concat([ONE_PIXEL_PNG, randomBytes(UPLOAD_CHUNK_BYTES)]);
    const icon = await oldUpload('icon', iconBytes);
    const pkg = await oldUpload('package', await buildZip(packageEntries()));
    const lost = await oldUpload('icon', ONE_PIXEL_PNG, null);
    const altered = await oldUpload('icon', ONE_PIXEL_PNG, Buffer.from(ONE_PIXEL_PNG).fill(0, 20));
    writeFileSync(join(uploadDir, tenant.organizationId, `${randomUUID()}`), 'a file no upload names (purged)');
    const fresh = await testApp.http().post('/api/openapi/v1/uploads').set('Authorization', tenant.bearer).field('kind', 'icon').attach('file', ONE_PIXEL_PNG, 'i.png').expect(201);
    // Not in the database yet: answered like an upload without bytes.
    await testApp.http().get(contentPath(icon.id)).expect(404);

    const first = await importFiles();
    expect(first.code).toBe(0);
    expect(first.report.moved).toBe(2);
    expect(ours(first.report.missing)).toEqual([lost.key]);
    expect(ours(first.report.skipped)).toEqual([{ storage_key: altered.key, reason: 'sha256_mismatch' }]);
    expect(JSON.stringify(first.report)).not.toContain(fresh.body.upload_id);

    const served = await testApp.http().get(contentPath(icon.id)).buffer(true).expect(200);
    expect(Buffer.from(served.body).equals(iconBytes)).toBe(true);
    expect(await chunks(icon.id)).toBe(2);
    const suite = await admin.createExpertSuite(tenant.organizationId, `imported-${randomUUID().slice(0, 8)}`);
    const patched = await testApp.http().patch(`/api/openapi/v1/expert-suites/${suite.id}`).set('Authorization', tenant.bearer).send({ icon_upload_id: icon.id, upload_id: pkg.id }).expect(200);
    expect(patched.body).toMatchObject({ has_package: true, version: '2.1.0' });
    expect(new URL(patched.body.icon_url).pathname).toBe(contentPath(icon.id));

    const second = await importFiles();
    expect(second.report.moved).toBe(0);
    expect((second.report.already_stored as number) - (first.report.already_stored as number)).toBe(2);
    expect(ours(second.report.missing)).toEqual([lost.key]);
    expect(ours(second.report.skipped)).toEqual(ours(first.report.skipped));
    expect([await chunks(icon.id), await chunks(pkg.id), await chunks(lost.id), await chunks(altered.id)]).toEqual([2, 1, 0, 0]);
  });

  it('refuses a directory that does not exist, with exit code 1, instead of calling every file missing', async () => {
    const { code, stderr } = await importFiles(join(uploadDir, 'nope'));
    expect(code).toBe(1);
    expect(stderr).toContain('is not a directory');
  });
});

describe('uploads written before the bytes moved into the database (embedded PGlite, from an empty schema)', () => {
  const MIGRATION = '20261124130000_upload_bytes_in_database';

  it('keep their storage key through the migration, and the import then serves them', async () => {
    const database = await openDatabase(testConfig({ DATABASE_URL: undefined }));
    try {
      await database.prisma.$executeRawUnsafe('DROP SCHEMA public CASCADE');
      await database.prisma.$executeRawUnsafe('CREATE SCHEMA public');
      const before = join(mkdtempSync(join(tmpdir(), 'wsa-migrations-')), 'migrations');
      cpSync(defaultMigrationsDir(), before, { recursive: true });
      rmSync(join(before, MIGRATION), { recursive: true });
      await database.migrate(before);

      const [organizationId, uploadId] = [randomUUID(), randomUUID()];
      const key = `${organizationId}/${uploadId}`;
      const sha256 = createHash('sha256').update(ONE_PIXEL_PNG).digest('hex');
      await database.prisma.$executeRaw`INSERT INTO organizations (id, name) VALUES (${organizationId}::uuid, 'Before')`;
      await database.prisma.$executeRaw`
        INSERT INTO uploads (id, organization_id, kind, size, sha256, content_type, storage_key, expires_at)
        VALUES (${uploadId}::uuid, ${organizationId}::uuid, 'icon', ${ONE_PIXEL_PNG.length}, ${sha256}, 'image/png', ${key}, now() + interval '1 hour')`;
      const uploadDir = mkdtempSync(join(tmpdir(), 'wsa-old-uploads-'));
      mkdirSync(join(uploadDir, organizationId));
      writeFileSync(join(uploadDir, key), ONE_PIXEL_PNG);

      expect(await database.migrate()).toEqual([MIGRATION]);
      expect((await database.prisma.upload.findUniqueOrThrow({ where: { id: uploadId } })).storageKey).toBe(key);
      expect(await new AdminService(database.sql).importUploadFiles(uploadDir)).toEqual({ moved: 1, already_stored: 0, missing: [], skipped: [] });

      const app = await startTestApp(database);
      try {
        const served = await app.http().get(contentPath(uploadId)).buffer(true).expect(200);
        expect(Buffer.from(served.body).equals(ONE_PIXEL_PNG)).toBe(true);
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });
});
