import { randomBytes, randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements, created } from '../src/common/audit/audit-event';
import type { AppError } from '../src/common/errors/app-error';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { HeldTransaction } from '../src/modules/uploads/held-transaction';
import { UploadChunksRepository } from '../src/modules/uploads/upload-chunks.repository';
import { UploadLookupService } from '../src/modules/uploads/upload-lookup.service';
import { UploadQuota } from '../src/modules/uploads/upload-quota';
import { UploadsRepository, type KeptUpload } from '../src/modules/uploads/uploads.repository';
import { createTenant, testConfig, testDatabaseUrl, until, useTestDatabase } from './support/test-app';

/** The uploads module's services and repositories on the test database, without HTTP. */
describe('upload repositories on the database', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let uploads: UploadsRepository;
  let chunks: UploadChunksRepository;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    uploads = new UploadsRepository(txHost, new AuditStatements('off'));
    chunks = new UploadChunksRepository(txHost);
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  // Interleavings of two transactions need two connections: PostgreSQL only (PGlite has one).
  const itOnPostgres = testDatabaseUrl() ? it : it.skip;

  const hourFromNow = () => new Date(Date.now() + 3_600_000);

  function kept(kind: 'icon' | 'package', fields: Partial<KeptUpload> = {}): KeptUpload {
    const manifest = kind === 'package' ? { name: 'p', version: '1.0.0', display_name: null, description: null, commands: [], skills: [], connectors: [], connector_refs: [], readme_content: '', readme_content_cn: '' } : null;
    const contentType = kind === 'icon' ? 'image/png' : 'application/zip';
    return { id: randomUUID(), kind, size: 10, sha256: 'a'.repeat(64), contentType, manifest, createdAt: new Date(), expiresAt: hourFromNow(), ...fields };
  }

  async function insert(upload: KeptUpload, organization = organizationId): Promise<KeptUpload> {
    await uploads.insert(organization, upload, { actor: CLI_ACTOR, at: upload.createdAt }, created({ size: upload.size }));
    return upload;
  }

  const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: AppError) => ({ code: error.code, details: error.details }));

  it('inserts an upload with its one audit event; a package reads back its manifest as JSON, an icon has SQL NULL', async () => {
    const pkg = await insert(kept('package'));
    const icon = await insert(kept('icon'));

    expect(await uploads.findForShare(organizationId, pkg.id)).toEqual({ id: pkg.id, kind: 'package', manifest: pkg.manifest, expiresAt: pkg.expiresAt });
    const [{ nullManifest }] = await txHost.sql.query<{ nullManifest: boolean }>(Prisma.sql`SELECT manifest IS NULL AS "nullManifest" FROM uploads WHERE id = ${icon.id}::uuid`);
    expect(nullManifest).toBe(true);
    const events = await fixture.database.prisma.auditEvent.findMany({ where: { resourceId: { in: [pkg.id, icon.id] } }, select: { action: true, changes: true } });
    expect(events).toEqual([
      { action: 'upload.created', changes: { size: { old: null, new: 10 } } },
      { action: 'upload.created', changes: { size: { old: null, new: 10 } } },
    ]);
  });

  it("finds an icon by id alone for the public route, never a package, and answers another organization's upload as missing in a PATCH", async () => {
    const other = (await createTenant(fixture.database)).organizationId;
    const icon = await insert(kept('icon', { size: 7 }), other);
    const pkg = await insert(kept('package'), other);

    expect(await uploads.findOfKind(icon.id, 'icon')).toEqual({ contentType: 'image/png', size: 7 });
    expect(await uploads.findOfKind(pkg.id, 'icon')).toBeUndefined();
    const lookup = new UploadLookupService(uploads);
    expect(await rejection(txHost.withSqlTransaction(() => lookup.findUsable(organizationId, icon.id, 'icon', 'icon_upload_id', new Date())))).toEqual({
      code: 'UPLOAD_NOT_FOUND',
      details: { field: 'icon_upload_id', reason: 'not_found' },
    });
  });

  it('refuses an upload of the wrong kind or an expired one, and hands back a usable one', async () => {
    const lookup = new UploadLookupService(uploads);
    const icon = await insert(kept('icon'));
    const expired = await insert(kept('icon', { expiresAt: new Date(Date.now() - 1000) }));
    const find = (id: string, kind: 'icon' | 'package') => txHost.withSqlTransaction(() => lookup.findUsable(organizationId, id, kind, 'field', new Date()));

    expect(await rejection(find(icon.id, 'package'))).toEqual({ code: 'UPLOAD_NOT_USABLE', details: { field: 'field', reason: 'wrong_kind' } });
    expect(await rejection(find(expired.id, 'icon'))).toEqual({ code: 'UPLOAD_NOT_USABLE', details: { field: 'field', reason: 'expired' } });
    expect(await find(icon.id, 'icon')).toMatchObject({ id: icon.id, kind: 'icon', manifest: null });
  });

  it("refuses an upload past the organization's quota with UPLOAD_QUOTA_EXCEEDED, leaving the upload's own row and other organizations out of the sum", async () => {
    const [organization, other] = [(await createTenant(fixture.database)).organizationId, (await createTenant(fixture.database)).organizationId];
    const quota = new UploadQuota(uploads, testConfig({ UPLOAD_STORAGE_QUOTA_BYTES: 100 }));
    const stored = await insert(kept('package', { size: 60 }), organization);
    const enforce = (org: string, uploadId: string, size: number) => txHost.withSqlTransaction(() => quota.enforce(org, uploadId, size));

    expect(await rejection(enforce(organization, randomUUID(), 41))).toEqual({ code: 'UPLOAD_QUOTA_EXCEEDED', details: undefined });
    await enforce(organization, randomUUID(), 40);
    // A streamed package's own row is there already: it is not counted against itself.
    await enforce(organization, stored.id, 100);
    await enforce(other, randomUUID(), 100);
    expect(await fixture.database.prisma.uploadQuotaLock.count({ where: { organizationId: { in: [organization, other] } } })).toBe(2);
  });

  itOnPostgres("holds the organization's quota lock until the transaction that read the stored bytes ends", async () => {
    const organization = (await createTenant(fixture.database)).organizationId;
    const first = await HeldTransaction.begin(txHost);
    try {
      await first.run(() => uploads.storedBytesUnderQuotaLock(organization, randomUUID()));
      let secondRead = false;
      const second = txHost.withSqlTransaction(() => uploads.storedBytesUnderQuotaLock(organization, randomUUID())).then((bytes) => {
        secondRead = true;
        return bytes;
      });
      await first.run(() => uploads.insert(organization, kept('icon', { size: 25 }), { actor: CLI_ACTOR, at: new Date() }, {}));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(secondRead).toBe(false);
      await first.commit();
      // Read after the lock was granted: it sees the upload the first transaction committed.
      expect(await second).toBe(25);
    } finally {
      await first.rollBack();
    }
  });

  it('stores the pieces of an upload byte for byte, and a piece that is not there is null', async () => {
    const upload = await insert(kept('package'));
    const piece = randomBytes(70_000);
    await txHost.withSqlTransaction(async () => {
      await chunks.insert(upload.id, 0, piece);
      await chunks.insert(upload.id, 1, Buffer.alloc(0));
    });

    expect((await chunks.find(upload.id, 0))?.equals(piece)).toBe(true);
    expect(await chunks.find(upload.id, 1)).toEqual(Buffer.alloc(0));
    expect(await chunks.find(upload.id, 2)).toBeNull();
  });

  it('keeps the statements run() sends in the held transaction: kept by commit, gone after a roll-back', async () => {
    const [keptId, droppedId] = [randomUUID(), randomUUID()];
    const keeping = await HeldTransaction.begin(txHost);
    await keeping.run(async () => {
      await uploads.insertReceiving(organizationId, keptId);
      await chunks.insert(keptId, 0, Buffer.from('zip'));
    });
    expect((await keeping.run(() => chunks.find(keptId, 0)))?.toString()).toBe('zip');
    await keeping.commit();
    const dropping = await HeldTransaction.begin(txHost);
    await dropping.run(() => uploads.insertReceiving(organizationId, droppedId));
    await dropping.rollBack();

    expect(await uploads.findOfKind(keptId, 'package')).toEqual({ contentType: 'application/zip', size: 0 });
    expect((await chunks.find(keptId, 0))?.toString()).toBe('zip');
    expect(await uploads.findOfKind(droppedId, 'package')).toBeUndefined();
  });

  itOnPostgres('shows nothing of a held transaction to other sessions before it commits', async () => {
    const uploadId = randomUUID();
    const held = await HeldTransaction.begin(txHost);
    try {
      await held.run(() => uploads.insertReceiving(organizationId, uploadId));
      expect(await uploads.findOfKind(uploadId, 'package')).toBeUndefined();
      await held.commit();
      expect(await uploads.findOfKind(uploadId, 'package')).toBeDefined();
    } finally {
      await held.rollBack();
    }
  });

  describe('the purge batch', () => {
    const past = () => new Date(Date.now() - 1000);

    it('deletes expired uploads nothing needs, row and pieces, and keeps an expired icon a suite names', async () => {
      const expiredPackage = await insert(kept('package', { expiresAt: past() }));
      const usedIcon = await insert(kept('icon', { expiresAt: past() }));
      const unusedIcon = await insert(kept('icon', { expiresAt: past() }));
      const live = await insert(kept('icon'));
      await txHost.withSqlTransaction(() => chunks.insert(expiredPackage.id, 0, Buffer.from('bytes')));
      const suite = await fixture.admin.createExpertSuite(organizationId, `suite-${randomUUID().slice(0, 8)}`);
      await fixture.database.prisma.expertSuite.update({ where: { id: suite.id }, data: { iconUploadId: usedIcon.id } });

      let removed = 0;
      for (let batch = await uploads.deleteExpiredBatch(new Date(), 1); batch.selected > 0; batch = await uploads.deleteExpiredBatch(new Date(), 1)) {
        expect(batch.selected).toBe(1);
        removed += batch.deleted;
      }

      expect(removed).toBeGreaterThanOrEqual(2);
      const left = await fixture.database.prisma.upload.findMany({ where: { id: { in: [expiredPackage.id, usedIcon.id, unusedIcon.id, live.id] } }, select: { id: true } });
      expect(left.map(({ id }) => id).sort()).toEqual([usedIcon.id, live.id].sort());
      expect(await chunks.find(expiredPackage.id, 0)).toBeNull();
    });

    itOnPostgres('skips an upload a PATCH holds FOR SHARE, without waiting, and deletes it on a later run', async () => {
      const held = await insert(kept('icon', { expiresAt: past() }));
      const patch = await HeldTransaction.begin(txHost);
      try {
        expect(await patch.run(() => uploads.findForShare(organizationId, held.id))).toBeDefined();
        while ((await uploads.deleteExpiredBatch(new Date(), 500)).selected === 500);
        expect(await uploads.findOfKind(held.id, 'icon')).toBeDefined();
      } finally {
        await patch.rollBack();
      }
      expect(await uploads.deleteExpiredBatch(new Date(), 500)).toMatchObject({ deleted: 1 });
      expect(await uploads.findOfKind(held.id, 'icon')).toBeUndefined();
    });

    itOnPostgres('makes a lookup wait for the batch that holds the row, then answers it as missing', async () => {
      const icon = await insert(kept('icon', { expiresAt: past() }));
      const purge = await HeldTransaction.begin(txHost);
      try {
        await purge.run(() => txHost.sql.query(Prisma.sql`SELECT id FROM uploads WHERE id = ${icon.id}::uuid FOR UPDATE`));
        let found: unknown = 'waiting';
        const lookup = txHost.withSqlTransaction(() => uploads.findForShare(organizationId, icon.id)).then((row) => (found = row));
        await until(async () => (await waitingForLocks()) > 0);
        expect(found).toBe('waiting');
        await purge.run(() => txHost.sql.execute(Prisma.sql`DELETE FROM uploads WHERE id = ${icon.id}::uuid`));
        await purge.commit();
        await lookup;
        expect(found).toBeUndefined();
      } finally {
        await purge.rollBack();
      }
    });
  });

  describe('for cli uploads import', () => {
    it('lists the uploads with a storage key page by page in id order, each with whether its bytes are stored, and locks one for the copy', async () => {
      const ids: string[] = [randomUUID(), randomUUID(), randomUUID()].sort();
      for (const id of ids) {
        await fixture.database.prisma.upload.create({
          data: { id, organizationId, kind: 'icon', size: 3, sha256: 'b'.repeat(64), contentType: 'image/png', storageKey: `${organizationId}/${id}`, expiresAt: hourFromNow() },
        });
      }
      await txHost.withSqlTransaction(() => chunks.insert(ids[1], 0, Buffer.from('abc')));

      const ours = (rows: Awaited<ReturnType<UploadsRepository['listWithStorageKey']>>) => rows.filter((row) => ids.includes(row.id));
      const first = await uploads.listWithStorageKey(undefined, 2);
      const second = await uploads.listWithStorageKey(first[first.length - 1].id, 2);
      expect(ours([...first, ...second])).toEqual(ids.map((id, index) => ({ id, storageKey: `${organizationId}/${id}`, size: 3, sha256: 'b'.repeat(64), stored: index === 1 })));

      expect(await txHost.withSqlTransaction(() => uploads.lockForImport(ids[0]))).toEqual({ stored: false });
      expect(await txHost.withSqlTransaction(() => uploads.lockForImport(ids[1]))).toEqual({ stored: true });
      expect(await txHost.withSqlTransaction(() => uploads.lockForImport(randomUUID()))).toBeUndefined();
    });
  });

  async function waitingForLocks(): Promise<number> {
    const [{ waiting }] = await txHost.sql.query<{ waiting: number }>(
      Prisma.sql`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return waiting;
  }
});
