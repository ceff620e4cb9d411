import { randomUUID } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Clock } from '../src/common/clock';
import type { Database } from '../src/database/database';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { CategoriesRepository } from '../src/modules/expert-suites/categories.repository';
import type { UpdateExpertSuiteDto } from '../src/modules/expert-suites/dto/update-expert-suite.dto';
import type { ExpertSuiteWithMarketItem } from '../src/modules/expert-suites/expert-suite.mapper';
import { ExpertSuitesRepository } from '../src/modules/expert-suites/expert-suites.repository';
import { ExpertSuitesService } from '../src/modules/expert-suites/expert-suites.service';
import { auditedChanges, diffOf, packageStateOf } from '../src/modules/expert-suites/suite-changes';
import { ownFieldWrites, PATCHED_COLUMNS, type PatchedColumn } from '../src/modules/expert-suites/suite-patch';
import { UploadLookupService } from '../src/modules/uploads/upload-lookup.service';
import { UploadsRepository } from '../src/modules/uploads/uploads.repository';
import { openTestDatabase } from './support/test-app';

const ROLLED_BACK = new Error('rolled back');

/**
 * The expert suites' repositories and service on the test database, without HTTP: the PATCH rules
 * the one statement checks in SQL against the same rules in code, the keyset page, the CLI's
 * inserts, and the transaction way.
 */
describe('ExpertSuitesRepository', () => {
  let database: Database;
  let txHost: TransactionHost;
  let suites: ExpertSuitesRepository;
  let categories: CategoriesRepository;
  let service: ExpertSuitesService;
  let organizationId: string;
  const audit = new AuditStatements('off');

  beforeAll(async () => {
    database = await openTestDatabase();
    txHost = new TransactionHost(database.sql);
    suites = new ExpertSuitesRepository(txHost, audit);
    categories = new CategoriesRepository(txHost, audit);
    service = new ExpertSuitesService(txHost, suites, categories, new UploadLookupService(new UploadsRepository(txHost, audit)), new Clock());
    organizationId = await newOrganization();
  });

  afterAll(async () => {
    await database?.close();
  });

  const newOrganization = async () => (await new AdminService(database.sql).createOrganization(`Suites ${randomUUID().slice(0, 8)}`)).id;
  const newSuite = (at = new Date(), organization = organizationId) => suites.insert(organization, `suite-${randomUUID().slice(0, 8)}`, { actor: CLI_ACTOR, at });
  const eventsOf = (suiteId: string) =>
    txHost.sql.query<{ action: string; revision_before: bigint | null; revision_after: bigint | null; changes: unknown }>(
      Prisma.sql`SELECT action, revision_before, revision_after, changes FROM audit_events WHERE resource_id = ${suiteId} ORDER BY id`,
    );
  /** Sets stored columns directly, as a package, an earlier release or another writer may have left them. */
  const store = (suiteId: string, columns: Prisma.Sql) => txHost.sql.execute(Prisma.sql`UPDATE expert_suites SET ${columns} WHERE id = ${suiteId}::uuid`);

  describe('the one-statement PATCH and the same rules in code', () => {
    const REF = { connector_id: 'crm', connector_origin: 'acme', required: true };
    // Stored states: a fresh draft; a package whose connectors.json has an element naming no connector (count 2, one ref); published; disabled with an uploaded icon.
    const STATES: Record<string, Prisma.Sql> = {
      draft: Prisma.sql`display_name = 'Helper'`,
      packaged: Prisma.sql`has_package = true, command_count = 3, skill_count = 1, connector_refs = ${JSON.stringify([REF])}::jsonb, connector_count = 2`,
      published: Prisma.sql`has_package = true, status = 'published', clients = '["web"]'::jsonb`,
      disabled: Prisma.sql`status = 'disabled', icon_url = '', icon_upload_id = ${randomUUID()}::uuid`,
    };
    const BODIES: UpdateExpertSuiteDto[] = [
      { display_name: 'Helper' },
      { display_name: 'Other', description: '' },
      { status: 'published' },
      { status: 'disabled' },
      { status: 'draft' },
      { command_count: 3 },
      { command_count: 5, skill_count: 1 },
      { display_name: 'Counted', skill_count: 2 },
      { connector_refs: [REF] },
      { connector_refs: [] },
      { connector_refs: [REF], display_name: 'With refs' },
      { clients: null },
      { clients: ['web', 'web'] },
      { icon_url: '' },
      { icon_url: 'https://cdn.example.com/icon.png' },
      { display_name: 'All', status: 'published', command_count: 3, expected_revision: 2 },
      { display_name: 'Stale', expected_revision: 1 },
    ];

    type Outcome = { written: false } | { written: true; columns: Partial<Record<PatchedColumn, unknown>>; changes: unknown };

    /** What the code says: refused and unchanged alike write nothing; otherwise the columns that change and the event's changes. */
    function inCode(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto): Outcome {
      if (body.expected_revision !== undefined && BigInt(body.expected_revision) !== suite.revision) return { written: false };
      try {
        const diff = diffOf(suite, ownFieldWrites(body), packageStateOf(suite));
        if (!diff.isChange) return { written: false };
        return { written: true, columns: diff.columns, changes: JSON.parse(JSON.stringify(auditedChanges(suite, diff.columns, undefined), (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))) };
      } catch {
        return { written: false };
      }
    }

    /** What the statement does, rolled back afterwards so that every body meets the same stored suite. */
    async function inSql(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto): Promise<Outcome> {
      let outcome: Outcome | undefined;
      await txHost
        .withSqlTransaction(async () => {
          const updated = await suites.updateInOneStatement(organizationId, suite.id, ownFieldWrites(body), body.expected_revision, { actor: CLI_ACTOR, at: new Date() });
          if (!updated) {
            outcome = { written: false };
          } else {
            const columns: Partial<Record<PatchedColumn, unknown>> = {};
            for (const column of Object.keys(PATCHED_COLUMNS) as PatchedColumn[]) {
              if (JSON.stringify(updated.suite[column], bigintsAsText) !== JSON.stringify(suite[column], bigintsAsText)) columns[column] = updated.suite[column];
            }
            const event = (await eventsOf(suite.id)).find(({ action }) => action === 'expert_suite.updated')!;
            expect(updated.suite.revision).toBe(suite.revision + 1n);
            outcome = { written: true, columns, changes: event.changes };
          }
          throw ROLLED_BACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLED_BACK) throw error;
        });
      return outcome!;
    }

    it.each(Object.keys(STATES))('agree on every body for a %s suite: whether it writes, what, and what the event says', async (state) => {
      const created = await newSuite();
      await store(created.id, Prisma.sql`${STATES[state]}, revision = 2`);
      const suite = (await suites.findById(organizationId, created.id))!;
      for (const body of BODIES) {
        expect({ body, outcome: await inSql(suite, body) }).toEqual({ body, outcome: inCode(suite, body) });
      }
      expect(await suites.findById(organizationId, created.id)).toEqual(suite);
    });
  });

  describe('PATCH through the service', () => {
    it('answers a count that differs from the package with 400, and the same connector_refs on a package as no change, both ways', async () => {
      const suite = await newSuite();
      await store(suite.id, Prisma.sql`has_package = true, command_count = 3, connector_refs = '[{"connector_id":"crm","connector_origin":"acme","required":true}]'::jsonb, connector_count = 2`);
      const refs = [{ connector_id: 'crm', connector_origin: 'acme', required: true }];
      await expect(service.update(organizationId, suite.id, { command_count: 4 }, { kind: 'none' }, CLI_ACTOR)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'command_count', suggestion: '3' } });
      // connector_count counts connectors.json (2); the same single ref sent back changes nothing, in one statement or in a transaction.
      for (const body of [{ connector_refs: refs }, { connector_refs: refs, clear_category: true }]) {
        const answered = await service.update(organizationId, suite.id, body, { kind: 'none' }, CLI_ACTOR);
        expect({ revision: answered.revision, connectorCount: answered.connectorCount }).toEqual({ revision: 1n, connectorCount: 2n });
      }
      expect(await eventsOf(suite.id)).toHaveLength(1);
    });

    it("puts a suite into a category of its organization, bumping both revisions once, and refuses another organization's", async () => {
      const suite = await newSuite();
      const category = (await categories.insert(organizationId, `cat-${randomUUID().slice(0, 8)}`, { actor: CLI_ACTOR, at: new Date() }))!;
      const foreign = (await categories.insert(await newOrganization(), 'Foreign', { actor: CLI_ACTOR, at: new Date() }))!;
      await expect(service.update(organizationId, suite.id, { category_id: foreign.id, display_name: 'x' }, { kind: 'none' }, CLI_ACTOR)).rejects.toMatchObject({ code: 'CATEGORY_NOT_FOUND' });
      const moved = await service.update(organizationId, suite.id, { category_id: category.id, display_name: 'Moved' }, { kind: 'none' }, CLI_ACTOR);
      expect({ revision: moved.revision, displayName: moved.displayName, marketItem: moved.marketItem }).toEqual({
        revision: 2n,
        displayName: 'Moved',
        marketItem: expect.objectContaining({ categoryId: category.id, revision: 2n }),
      });
      const [, updated] = await eventsOf(suite.id);
      expect(updated).toEqual({
        action: 'expert_suite.updated',
        revision_before: 1n,
        revision_after: 2n,
        changes: { display_name: { old: suite.name, new: 'Moved' }, category_id: { old: null, new: category.id } },
      });
      // Made in a transaction: last_change is cleared, so that it never describes another revision.
      const [stored] = await txHost.sql.query<{ last_change: unknown }>(Prisma.sql`SELECT last_change FROM expert_suites WHERE id = ${suite.id}::uuid`);
      expect(stored.last_change).toBeNull();
    });

    it('refuses a stale expected_market_item_revision and keeps the rest of the request out', async () => {
      const suite = await newSuite();
      await expect(service.update(organizationId, suite.id, { expected_market_item_revision: 5, display_name: 'x' }, { kind: 'none' }, CLI_ACTOR)).rejects.toMatchObject({
        code: 'MARKET_ITEM_REVISION_CONFLICT',
        details: { suggestion: '1' },
      });
      expect(await suites.findById(organizationId, suite.id)).toEqual(suite);
    });

    it('creates the market item of a suite that has none when it gets a category', async () => {
      const suite = await newSuite();
      await txHost.sql.execute(Prisma.sql`DELETE FROM market_items WHERE suite_id = ${suite.id}::uuid`);
      const category = (await categories.insert(organizationId, `cat-${randomUUID().slice(0, 8)}`, { actor: CLI_ACTOR, at: new Date() }))!;
      const answered = await service.update(organizationId, suite.id, { category_id: category.id }, { kind: 'none' }, CLI_ACTOR);
      expect(answered.marketItem).toEqual(expect.objectContaining({ categoryId: category.id, revision: 1n, suiteId: suite.id, organizationId }));
    });
  });

  describe('listPage', () => {
    it('pages by (created_at, id) after a position, filtered by status and category, never showing another organization', async () => {
      const organization = await newOrganization();
      const at = new Date('2026-03-01T10:00:00.123Z');
      const first = await newSuite(at, organization);
      const sameTime = await newSuite(at, organization);
      const later = await newSuite(new Date(at.getTime() + 1), organization);
      await newSuite(at);
      await store(later.id, Prisma.sql`status = 'disabled'`);
      const inOrder = [first, sameTime].sort((a, b) => (a.id < b.id ? -1 : 1)).concat(later);

      const page = await suites.listPage(organization, {}, undefined, 2);
      expect(page.map((suite) => suite.id)).toEqual(inOrder.slice(0, 2).map((suite) => suite.id));
      const rest = await suites.listPage(organization, {}, { after: String(at.getTime()), id: page[1].id }, 2);
      expect(rest.map((suite) => suite.id)).toEqual([later.id]);
      expect((await suites.listPage(organization, { status: 'disabled' }, undefined, 10)).map((suite) => suite.id)).toEqual([later.id]);
      expect(await suites.listPage(organization, { category_id: randomUUID() }, undefined, 10)).toEqual([]);
    });
  });

  // As the CLI runs them: on a TransactionHost without the driver (raw statements through the Prisma client).
  describe("the admin CLI's inserts", () => {
    let cliSuites: ExpertSuitesRepository;
    let cliCategories: CategoriesRepository;
    beforeAll(() => {
      const cliHost = new TransactionHost(database.sql);
      cliSuites = new ExpertSuitesRepository(cliHost, audit);
      cliCategories = new CategoriesRepository(cliHost, audit);
    });

    it('creates a draft suite with its market item and its expert_suite.created event', async () => {
      const at = new Date('2026-04-01T08:00:00.000Z');
      const suite = await cliSuites.insert(organizationId, 'tax-helper', { actor: CLI_ACTOR, at });
      expect(suite).toEqual(
        expect.objectContaining({ name: 'tax-helper', displayName: 'tax-helper', status: 'draft', revision: 1n, createdAt: at, updatedAt: at, hasPackage: false, commandCount: 0n }),
      );
      expect(suite.marketItem).toEqual(expect.objectContaining({ organizationId, suiteId: suite.id, categoryId: null, revision: 1n, updatedAt: at }));
      expect(await eventsOf(suite.id)).toEqual([
        {
          action: 'expert_suite.created',
          revision_before: null,
          revision_after: 1n,
          changes: { name: { old: null, new: 'tax-helper' }, display_name: { old: null, new: 'tax-helper' }, status: { old: null, new: 'draft' } },
        },
      ]);
    });

    it('writes no second category of the same name in an organization (nor its event), and the same name in another one', async () => {
      const name = `Finance ${randomUUID().slice(0, 8)}`;
      const category = await cliCategories.insert(organizationId, name, { actor: CLI_ACTOR, at: new Date() });
      expect(category).toEqual({ id: expect.any(String), name });
      expect(await cliCategories.insert(organizationId, name, { actor: CLI_ACTOR, at: new Date() })).toBeUndefined();
      const [{ count }] = await txHost.sql.query<{ count: bigint }>(
        Prisma.sql`SELECT count(*) AS count FROM audit_events WHERE organization_id = ${organizationId}::uuid AND action = 'category.created' AND changes -> 'name' ->> 'new' = ${name}`,
      );
      expect(count).toBe(1n);
      expect(await cliCategories.insert(await newOrganization(), name, { actor: CLI_ACTOR, at: new Date() })).toEqual({ id: expect.any(String), name });
      expect(await categories.exists(organizationId, category!.id)).toBe(true);
      expect(await categories.exists(await newOrganization(), category!.id)).toBe(false);
    });
  });
});

function bigintsAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
