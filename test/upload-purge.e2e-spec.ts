import { randomUUID } from 'node:crypto';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Clock } from '../src/common/clock';
import { UploadPurger } from '../src/modules/uploads/upload-purger';
import { expectErrorBody } from './support/error-body';
import { startTestApp, testDatabaseUrl, useTestApp } from './support/test-app';
import { ONE_PIXEL_PNG as PNG } from './support/images';
import { buildZip, packageEntries } from './support/zip-builder';

const UPLOADS = '/api/openapi/v1/uploads';
const contentPath = (uploadId: string) => `${UPLOADS}/${uploadId}/content`;

describe('purging expired uploads', () => {
  const fixture = useTestApp();

  const purge = (app = fixture.app, batchSize?: number) => app.app.get(UploadPurger).purge(batchSize);
  const { newSuite } = fixture;
  const patch = (suiteId: string, body: object, app = fixture.app) =>
    app.http().patch(`/api/openapi/v1/expert-suites/${suiteId}`).set('Authorization', fixture.tenant.bearer).send(body);

  /** Uploads a file and returns its id. */
  async function upload(kind: 'package' | 'icon'): Promise<{ id: string }> {
    const file = kind === 'icon' ? PNG : await buildZip(packageEntries());
    const response = await fixture.http().post(UPLOADS).set('Authorization', fixture.tenant.bearer).field('kind', kind).attach('file', file, `f.${kind === 'icon' ? 'png' : 'zip'}`);
    expect(response.status).toBe(201);
    return { id: response.body.upload_id };
  }

  const expire = (...ids: string[]) => fixture.database.prisma.upload.updateMany({ where: { id: { in: ids } }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const exists = async (upload: { id: string }) => ({
    row: (await fixture.database.prisma.upload.count({ where: { id: upload.id } })) === 1,
    bytes: (await fixture.database.prisma.uploadChunk.count({ where: { uploadId: upload.id } })) > 0,
  });

  it('removes an expired package, row and bytes, and keeps an unexpired one; a suite keeps what the package gave it', async () => {
    const expired = await upload('package');
    const live = await upload('package');
    const suite = await newSuite();
    await patch(suite.id, { upload_id: expired.id }).expect(200);
    await expire(expired.id);

    expect(await purge()).toBeGreaterThanOrEqual(1);

    expect(await exists(expired)).toEqual({ row: false, bytes: false });
    expect(await exists(live)).toEqual({ row: true, bytes: true });
    const applied = await fixture.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id } });
    expect(applied).toMatchObject({ hasPackage: true, version: '2.1.0', commandCount: 2n, skillCount: 1n, readmeContent: '# Code Review\nUse /review.' });
    const again = await patch(suite.id, { upload_id: expired.id });
    expectErrorBody(again, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
  });

  it('keeps an expired icon a suite uses, still served, and removes expired icons no suite uses any more', async () => {
    const inUse = await upload('icon');
    const dropped = await upload('icon');
    const neverUsed = await upload('icon');
    const [keeping, switching] = [await newSuite(), await newSuite()];
    await patch(keeping.id, { icon_upload_id: inUse.id }).expect(200);
    await patch(switching.id, { icon_upload_id: dropped.id }).expect(200);
    await patch(switching.id, { icon_url: 'https://cdn.example.com/icon.png' }).expect(200);
    await expire(inUse.id, dropped.id, neverUsed.id);

    expect(await purge()).toBeGreaterThanOrEqual(2);

    expect(await exists(inUse)).toEqual({ row: true, bytes: true });
    await fixture.http().get(contentPath(inUse.id)).expect(200);
    for (const gone of [dropped, neverUsed]) {
      expect(await exists(gone)).toEqual({ row: false, bytes: false });
      expectErrorBody(await fixture.http().get(contentPath(gone.id)), 404, 'NOT_FOUND', 'not_found');
    }
  });

  it('lets two instances purge at once, in batches, without removing any upload twice', async () => {
    const other = await startTestApp(fixture.database);
    try {
      const uploads = await Promise.all(Array.from({ length: 12 }, () => upload('icon')));
      await expire(...uploads.map(({ id }) => id));

      const removed = await Promise.all([purge(fixture.app, 5), purge(other, 5), purge(fixture.app, 5), purge(other, 5)]);

      // Each purge counts the rows its DELETE removed: twelve in all means none was removed twice.
      expect(removed.reduce((sum, count) => sum + count, 0)).toBe(12);
      for (const upload of uploads) expect(await exists(upload)).toEqual({ row: false, bytes: false });
    } finally {
      await other.close();
    }
  });

  // These two hold a row lock in a transaction of the test while a PATCH waits on it: PGlite has one
  // connection and runs one transaction at a time, so the interleavings exist only on PostgreSQL.
  const itOnPostgres = testDatabaseUrl() ? it : it.skip;

  /** Resolves once some session of the database waits for a lock (the PATCH queued behind the test). */
  async function untilAPatchWaits(): Promise<void> {
    for (let attempt = 0; attempt < 250; attempt++) {
      const [{ waiting }] = await fixture.database.prisma.$queryRaw<[{ waiting: number }]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (waiting > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('The PATCH never waited for the lock the test holds');
  }

  const danglingIcons = () => fixture.database.prisma.$queryRaw<Array<{ id: string }>>`
    SELECT s.id FROM expert_suites s
    WHERE s.organization_id = ${fixture.tenant.organizationId}::uuid AND s.icon_upload_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.id = s.icon_upload_id)`;

  itOnPostgres('skips an icon a PATCH is applying at that moment, and keeps it once the PATCH has committed', async () => {
    // The purging instance's clock is two minutes ahead: it sees the icon (expiring in one minute) as
    // expired while the PATCH still accepts it.
    const purger = await startTestApp(fixture.database);
    try {
      jest.spyOn(purger.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 120_000));
      const icon = await upload('icon');
      await fixture.database.prisma.upload.update({ where: { id: icon.id }, data: { expiresAt: new Date(Date.now() + 60_000) } });
      const suite = await newSuite();
      const category = await fixture.admin.createCategory(fixture.tenant.organizationId, `category-${randomUUID().slice(0, 8)}`);
      let patched: Promise<Awaited<ReturnType<typeof patch>>> | undefined;
      await fixture.database.prisma.$transaction(async (tx) => {
        // The PATCH also changes the category, so it stops at the market item row held here: after it
        // has read the icon and written icon_upload_id, before it commits.
        await tx.$queryRaw`SELECT id FROM market_items WHERE suite_id = ${suite.id}::uuid FOR UPDATE`;
        patched = patch(suite.id, { icon_upload_id: icon.id, category_id: category.id }).then((response) => response);
        await untilAPatchWaits();
        await purge(purger);
        expect(await exists(icon)).toEqual({ row: true, bytes: true });
      });
      expect((await patched!).status).toBe(200);
      await purge(purger);
      expect(await exists(icon)).toEqual({ row: true, bytes: true });
      await fixture.http().get(contentPath(icon.id)).expect(200);
      expect(await danglingIcons()).toEqual([]);
    } finally {
      jest.restoreAllMocks();
      await purger.close();
    }
  });

  itOnPostgres('makes a PATCH naming an icon the purge holds wait, and answers UPLOAD_NOT_FOUND once it is deleted', async () => {
    const icon = await upload('icon');
    const suite = await newSuite();
    let patched: Promise<Awaited<ReturnType<typeof patch>>> | undefined;
    // Stands in for the purge's transaction between its two statements (UploadPurger.deleteBatch).
    await fixture.database.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM uploads WHERE id = ${icon.id}::uuid FOR UPDATE SKIP LOCKED`;
      patched = patch(suite.id, { icon_upload_id: icon.id }).then((response) => response);
      await untilAPatchWaits();
      await tx.$executeRaw`DELETE FROM uploads u WHERE u.id = ${icon.id}::uuid AND NOT EXISTS (SELECT 1 FROM expert_suites s WHERE s.icon_upload_id = u.id)`;
    });
    expectErrorBody(await patched!, 422, 'UPLOAD_NOT_FOUND', 'unprocessable_entity');
    expect(await danglingIcons()).toEqual([]);
  });

  it('schedules the purges (uploads, idempotency records, audit events) with the configured interval and none when it is 0', async () => {
    expect(fixture.app.app.get(SchedulerRegistry).getIntervals().sort()).toEqual(['audit-purge', 'idempotency-purge', 'upload-purge']);
    const off = await startTestApp(fixture.database, { UPLOAD_PURGE_INTERVAL_SECONDS: 0, IDEMPOTENCY_PURGE_INTERVAL_SECONDS: 0, AUDIT_PURGE_INTERVAL_SECONDS: 0 });
    try {
      expect(off.app.get(SchedulerRegistry).getIntervals()).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
