import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { AdminService } from '../src/admin/admin.service';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import type { Database } from '../src/database/database';
import { TransactionHost } from '../src/database/transaction-host';
import { AuditEventsRepository } from '../src/modules/audit-events/audit-events.repository';
import { ExpertSuitesAudit } from '../src/modules/expert-suites/expert-suites.audit';
import { testDatabaseUrl, useTestDatabase } from './support/test-app';

const onPostgres = testDatabaseUrl() !== undefined;
const SECOND = 1000;

/** AuditEventsRepository on the test database, without HTTP: keyset pages, filters as id ranges, the purge's batches. */
describe('AuditEventsRepository', () => {
  const fixture = useTestDatabase();
  let database: Database;
  let admin: AdminService;
  let txHost: TransactionHost;
  let auditEvents: AuditEventsRepository;
  const writer = new AuditStatements('off');

  beforeAll(() => {
    ({ database, admin } = fixture);
    txHost = new TransactionHost(database.sql);
    auditEvents = new AuditEventsRepository(txHost);
  });

  const newOrganization = async () => (await admin.createOrganization(`Audit ${randomUUID().slice(0, 8)}`)).id;
  /** Writes a category.created event at `at` (by the CLI, or by `apiKeyId`), as the writers write one; returns its id. */
  const write = async (organizationId: string, at: Date, resourceId: string = randomUUID(), apiKeyId?: string) => {
    const actor = apiKeyId === undefined ? CLI_ACTOR : { type: 'api_key' as const, apiKeyId, requestId: 'req-1' };
    const [row] = await txHost.sql.query<{ id: string }>(
      writer.insert({ actor, at }, { organizationId, action: ExpertSuitesAudit.CategoryCreated, resourceId, changes: { name: { old: null, new: 'Finance' } } }),
    );
    return row.id;
  };
  /** Events written at `start`, `start` + 1 s, …: their ids, oldest first. */
  const writeSeconds = async (organizationId: string, start: Date, count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await write(organizationId, new Date(start.getTime() + i * SECOND)));
    return ids;
  };
  const ids = (rows: Array<{ eventId: string }>) => rows.map((row) => row.eventId);

  describe('list', () => {
    it("pages through the organization's events newest first, each page starting after the last id of the one before", async () => {
      const organizationId = await newOrganization();
      const written = await writeSeconds(organizationId, new Date('2026-06-01T00:00:00Z'), 5);
      await writeSeconds(await newOrganization(), new Date('2026-06-01T00:00:02Z'), 2);
      const newestFirst = [...written].reverse();
      // The organization's creation wrote no event: only these five are listed.
      const first = await auditEvents.list(organizationId, {}, undefined, 2);
      const second = await auditEvents.list(organizationId, {}, first[1].eventId, 2);
      const third = await auditEvents.list(organizationId, {}, second[1].eventId, 2);
      expect([ids(first), ids(second), ids(third)]).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    });

    it('reads the columns the mapper maps, with the types of the schema', async () => {
      const organizationId = await newOrganization();
      const at = new Date('2026-06-02T10:00:00.123Z');
      const apiKeyId = randomUUID();
      const eventId = await write(organizationId, at, 'resource-1', apiKeyId);
      expect(await auditEvents.list(organizationId, {}, undefined, 10)).toEqual([
        {
          eventId,
          occurredAt: at,
          action: 'category.created',
          resourceType: 'category',
          resourceId: 'resource-1',
          actorType: 'api_key',
          actorApiKeyId: apiKeyId,
          requestId: 'req-1',
          revisionBefore: null,
          revisionAfter: null,
          changes: { name: { old: null, new: 'Finance' } },
        },
      ]);
    });

    it('takes `since` inclusive and `until` exclusive, to the millisecond, and combines the other filters', async () => {
      const organizationId = await newOrganization();
      const start = new Date('2026-06-03T00:00:00Z');
      const written = await writeSeconds(organizationId, start, 4);
      const at = (second: number) => new Date(start.getTime() + second * SECOND);
      expect(ids(await auditEvents.list(organizationId, { since: at(1), until: at(3) }, undefined, 10))).toEqual([written[2], written[1]]);
      expect(ids(await auditEvents.list(organizationId, { since: new Date(at(1).getTime() + 1) }, undefined, 10))).toEqual([written[3], written[2]]);

      const apiKeyId = randomUUID();
      const mine = await write(organizationId, at(5), 'resource-2', apiKeyId);
      await write(organizationId, at(6), 'resource-2');
      const filter = { resourceType: 'category', resourceId: 'resource-2', action: 'category.created', actorApiKeyId: apiKeyId };
      expect(ids(await auditEvents.list(organizationId, filter, undefined, 10))).toEqual([mine]);
      expect(await auditEvents.list(organizationId, { ...filter, action: 'department.created' }, undefined, 10)).toEqual([]);
    });
  });

  describe('deleteBatchOlderThan', () => {
    it('deletes at most one batch of the events before the instant, of every organization, and none after it', async () => {
      const one = await newOrganization();
      const two = await newOrganization();
      const cutoff = new Date('2001-01-01T00:00:00Z');
      await writeSeconds(one, new Date('2000-01-01T00:00:00Z'), 3);
      await writeSeconds(two, new Date('2000-01-01T00:00:00Z'), 2);
      const kept = await write(one, cutoff);
      const left = async () => (await database.prisma.auditEvent.findMany({ where: { organizationId: { in: [one, two] } }, select: { id: true } })).map((row) => row.id);

      // Each test file has a database of its own: every event before 2001 is this test's.
      expect(await auditEvents.deleteBatchOlderThan(cutoff, 4)).toBe(4);
      expect(await left()).toHaveLength(2);
      expect(await auditEvents.deleteBatchOlderThan(cutoff, 4)).toBe(1);
      expect(await auditEvents.deleteBatchOlderThan(cutoff, 4)).toBe(0);
      expect(await left()).toEqual([kept]);
    });

    (onPostgres ? it : it.skip)('skips the events another transaction holds, instead of waiting for it (PostgreSQL)', async () => {
      const organizationId = await newOrganization();
      const [held] = await writeSeconds(organizationId, new Date('2000-06-01T00:00:00Z'), 2);
      const session = new Client({ connectionString: testDatabaseUrl() });
      await session.connect();
      try {
        await session.query('BEGIN');
        await session.query('SELECT id FROM audit_events WHERE organization_id = $1 AND id = $2 FOR UPDATE', [organizationId, held]);
        expect(await auditEvents.deleteBatchOlderThan(new Date('2001-01-01T00:00:00Z'), 10)).toBe(1);
        const left = await database.prisma.auditEvent.findMany({ where: { organizationId }, select: { id: true } });
        expect(left.map((row) => row.id)).toEqual([held]);
      } finally {
        await session.query('ROLLBACK');
        await session.end();
      }
    });
  });
});
