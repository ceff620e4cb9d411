import { randomUUID } from 'node:crypto';
import type { AdminService } from '../src/admin/admin.service';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { generateApiKeyToken } from '../src/common/auth/api-key-token';
import { API_KEY_REVOKED_CHANNEL, ApiKeysRepository } from '../src/common/auth/api-keys.repository';
import type { Database } from '../src/database/database';
import { violatedConstraint } from '../src/database/prisma-errors';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { until, useTestDatabase } from './support/test-app';

/** ApiKeysRepository on the test database, without HTTP: what its statements write and read. */
describe('ApiKeysRepository', () => {
  const fixture = useTestDatabase();
  let database: Database;
  let admin: AdminService;
  /** With DATABASE_NOTIFICATIONS on: a revocation is also announced with NOTIFY. */
  let apiKeys: ApiKeysRepository;
  /** With DATABASE_NOTIFICATIONS off: the revocation version alone tells the instances. */
  let quietApiKeys: ApiKeysRepository;

  beforeAll(() => {
    ({ database, admin } = fixture);
    apiKeys = new ApiKeysRepository(new TransactionHost(database.sql), new AuditStatements('on'), { DATABASE_NOTIFICATIONS: 'on' });
    quietApiKeys = new ApiKeysRepository(new TransactionHost(database.sql), new AuditStatements('off'), { DATABASE_NOTIFICATIONS: 'off' });
  });

  const newOrganization = async () => (await admin.createOrganization(`Keys ${randomUUID().slice(0, 8)}`)).id;
  const newKey = (scopes = ['admin.v1.quota.read']) => {
    const token = generateApiKeyToken();
    return { hash: token.hash, prefix: token.displayPrefix, scopes };
  };
  const cli = (at: Date) => ({ actor: CLI_ACTOR, at });
  const eventsOf = (resourceId: string) =>
    database.prisma.auditEvent.findMany({ where: { resourceId }, orderBy: { id: 'asc' }, omit: { id: true } });
  /** The key ids announced on API_KEY_REVOKED_CHANNEL from now on, once LISTEN holds. */
  const listenForRevocations = async () => {
    const notified: string[] = [];
    let listening = false;
    const subscription = await database.listen(API_KEY_REVOKED_CHANNEL, {
      onNotify: (payload) => notified.push(payload),
      onListening: (now) => {
        listening = now;
      },
    });
    await until(() => listening);
    return { notified, subscription };
  };
  const revocationVersion = async () => BigInt((await apiKeys.readRevocationVersion())!);

  describe('insert', () => {
    it.each([
      ['notifications on', () => apiKeys],
      ['notifications off', () => quietApiKeys],
    ])('stores the hash, prefix, scopes and creation time, with one api_key.created event that redacts the key (%s)', async (_how, repository) => {
      const organizationId = await newOrganization();
      const at = new Date('2026-03-01T10:00:00.123Z');
      const key = newKey(['admin.v1.quota.read', 'admin.v1.audit.read']);
      const row = await repository().insert(organizationId, key, cli(at));

      expect(row).toEqual({ id: expect.any(String), keyPrefix: key.prefix, scopes: key.scopes, createdAt: at, revokedAt: null });
      expect(await database.prisma.apiKey.findUniqueOrThrow({ where: { id: row.id } })).toEqual({
        id: row.id,
        organizationId,
        keyHash: key.hash,
        keyPrefix: key.prefix,
        scopes: key.scopes,
        createdAt: at,
        revokedAt: null,
      });
      expect(await eventsOf(row.id)).toEqual([
        {
          organizationId,
          occurredAt: at,
          action: 'api_key.created',
          resourceType: 'api_key',
          resourceId: row.id,
          actorType: 'cli',
          actorApiKeyId: null,
          requestId: null,
          revisionBefore: null,
          revisionAfter: null,
          changes: { key: { old: null, new: 'redacted' }, prefix: { old: null, new: key.prefix }, scopes: { old: null, new: key.scopes } },
        },
      ]);
    });

    it('writes neither key nor event for an organization that does not exist (the foreign key refuses the statement)', async () => {
      const key = newKey();
      const missing = randomUUID();
      const refused = await apiKeys.insert(missing, key, cli(new Date())).catch((error: unknown) => error);
      expect(violatedConstraint(refused)).toBe('api_keys_organization_id_fkey');
      expect(await database.prisma.apiKey.count({ where: { keyHash: key.hash } })).toBe(0);
      expect(await database.prisma.auditEvent.count({ where: { organizationId: missing } })).toBe(0);
    });
  });

  describe('findByHash', () => {
    it('finds a key by the hash of its token, revoked or not, and nothing for an unknown hash', async () => {
      const organizationId = await newOrganization();
      const key = newKey();
      const { id } = await apiKeys.insert(organizationId, key, cli(new Date()));
      expect(await apiKeys.findByHash(key.hash)).toEqual({ id, organizationId, scopes: key.scopes, revokedAt: null, keyHash: key.hash });
      const { revokedAt } = (await apiKeys.revoke(id, cli(new Date())))!;
      expect(await apiKeys.findByHash(key.hash)).toEqual({ id, organizationId, scopes: key.scopes, revokedAt, keyHash: key.hash });
      expect(await apiKeys.findByHash(newKey().hash)).toBeUndefined();
    });
  });

  describe('listByOrganization', () => {
    it("lists only the organization's keys, newest first (equal times by id), with their revocation", async () => {
      const organizationId = await newOrganization();
      const other = await newOrganization();
      const early = new Date('2026-01-01T00:00:00Z');
      const late = new Date('2026-02-01T00:00:00Z');
      const first = await apiKeys.insert(organizationId, newKey(), cli(early));
      const tied = [await apiKeys.insert(organizationId, newKey(), cli(late)), await apiKeys.insert(organizationId, newKey(), cli(late))];
      await apiKeys.insert(other, newKey(), cli(late));
      const revoked = (await apiKeys.revoke(first.id, cli(late)))!;

      const listed = await apiKeys.listByOrganization(organizationId);
      expect(listed).toEqual([...tied.sort((a, b) => (a.id < b.id ? -1 : 1)), { ...first, revokedAt: revoked.revokedAt }]);
      expect(await apiKeys.listByOrganization(randomUUID())).toEqual([]);
    });
  });

  describe('revoke', () => {
    it('revokes once: the first revoked_at and one api_key.revoked event stay, every revocation bumps the version and announces the key', async () => {
      const { notified, subscription } = await listenForRevocations();
      try {
        const organizationId = await newOrganization();
        const { id } = await apiKeys.insert(organizationId, newKey(), cli(new Date()));
        const first = new Date('2026-04-01T08:00:00.001Z');
        const version = await revocationVersion();

        expect(await apiKeys.revoke(id, cli(first))).toEqual({ id, revokedAt: first });
        expect(await apiKeys.revoke(id, cli(new Date('2026-04-02T08:00:00Z')))).toEqual({ id, revokedAt: first });

        expect(await revocationVersion()).toBe(version + 2n);
        expect((await eventsOf(id)).filter((event) => event.action === 'api_key.revoked')).toEqual([
          expect.objectContaining({ organizationId, occurredAt: first, resourceType: 'api_key', actorType: 'cli', changes: { revoked_at: { old: null, new: first.toISOString() } } }),
        ]);
        await until(() => notified.filter((payload) => payload === id).length === 2);
      } finally {
        await subscription.close();
      }
    });

    it('announces nothing with notifications off, and still bumps the version', async () => {
      const { notified, subscription } = await listenForRevocations();
      try {
        const organizationId = await newOrganization();
        const quiet = await quietApiKeys.insert(organizationId, newKey(), cli(new Date()));
        const loud = await apiKeys.insert(organizationId, newKey(), cli(new Date()));
        const version = await revocationVersion();
        await quietApiKeys.revoke(quiet.id, cli(new Date()));
        await apiKeys.revoke(loud.id, cli(new Date()));
        // Notifications arrive in commit order: once the second is heard, the first would have been.
        await until(() => notified.includes(loud.id));
        expect(notified).not.toContain(quiet.id);
        expect(await revocationVersion()).toBe(version + 2n);
      } finally {
        await subscription.close();
      }
    });

    it('answers undefined for an unknown key, and neither bumps the version nor writes an event', async () => {
      const version = await revocationVersion();
      const id = randomUUID();
      expect(await apiKeys.revoke(id, cli(new Date()))).toBeUndefined();
      expect(await revocationVersion()).toBe(version);
      expect(await eventsOf(id)).toEqual([]);
    });

    it('lets two revocations at once write one event: the second waits for the row lock and sees the key revoked', async () => {
      const organizationId = await newOrganization();
      const { id } = await apiKeys.insert(organizationId, newKey(), cli(new Date()));
      const [one, two] = await Promise.all([apiKeys.revoke(id, cli(new Date('2026-05-01T00:00:00Z'))), apiKeys.revoke(id, cli(new Date('2026-05-02T00:00:00Z')))]);
      expect(one!.revokedAt).toEqual(two!.revokedAt);
      const revocations = (await eventsOf(id)).filter((event) => event.action === 'api_key.revoked');
      expect(revocations.map((event) => event.occurredAt)).toEqual([one!.revokedAt]);
    });
  });

  it('reads the revocation version as the text of its int8', async () => {
    const [row] = await database.prisma.$queryRaw<{ version: bigint }[]>(Prisma.sql`SELECT version FROM api_key_revocation_version WHERE id = 1`);
    expect(await apiKeys.readRevocationVersion()).toBe(row.version.toString());
  });
});
