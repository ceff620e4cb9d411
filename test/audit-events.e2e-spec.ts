import { Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { AuditEventsScope } from '../src/modules/audit-events/audit-events.scopes';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import type { paths } from './client/schema';
import { createApiKey, createTenant, startTestApp, useTestApp, type TestTenant } from './support/test-app';
import { upload } from './support/uploads';
import { ONE_PIXEL_PNG } from './support/images';
import { buildZip, packageEntries } from './support/zip-builder';
import { AuditPurger } from '../src/modules/audit-events/audit-purger';
import { defineAuditAction } from '../src/common/audit/audit-actions';
import type { ModuleDefinitions } from '../src/common/registries/registries';
import { uuidV7 } from '../src/common/ids/uuid-v7';
import { Prisma } from '../src/generated/prisma/client';

const DEPARTMENTS = '/api/openapi/v1/departments';
const suitePath = (id: string) => `/api/openapi/v1/expert-suites/${id}`;

/** A module mounted only by the test's second app: its action is in that app's registries alone. */
@Module({})
class LateGadgetsModule {
  static readonly definitions: ModuleDefinitions = { auditActions: { Created: defineAuditAction('late_gadget.created') } };
}
const late = LateGadgetsModule.definitions.auditActions!.Created;

type ListQuery = NonNullable<paths['/api/openapi/v1/audit-events']['get']['parameters']['query']>;

/** The audit trail: GET /audit-events, through the typed client, and the events each write path leaves. */
describe('audit events', () => {
  const context = useTestApp({ listen: true });

  const clientFor = (tenant: TestTenant): Client<paths> => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: tenant.bearer } });
  const list = (tenant: TestTenant, query: ListQuery = {}) => clientFor(tenant).GET('/api/openapi/v1/audit-events', { params: { query } });
  /** The tenant's events of the API (the fixtures' CLI events left out), newest first. */
  const apiEvents = async (tenant: TestTenant, query: ListQuery = {}) => {
    const answer = await list(tenant, { page_size: 100, ...query });
    expect(answer.response.status).toBe(200);
    return answer.data!.items.filter((event) => event.actor.type === 'api_key');
  };
  const cliEvents = async (tenant: TestTenant, query: ListQuery = {}) =>
    (await list(tenant, { page_size: 100, ...query })).data!.items.filter((event) => event.actor.type === 'cli');
  const createDepartment = (tenant: TestTenant, body: object, key: string = randomUUID(), requestId?: string) => {
    const call = context.http().post(DEPARTMENTS).set('Authorization', tenant.bearer).set('Idempotency-Key', key);
    return (requestId ? call.set('X-Request-Id', requestId) : call).send(body);
  };

  describe('department.created', () => {
    it('writes one event with the actor, the request id and the created fields', async () => {
      const tenant = await createTenant(context.database);
      const requestId = `req-${randomUUID()}`;
      const created = await createDepartment(tenant, { name: 'Research', external_id: 'hr-1' }, randomUUID(), requestId).expect(201);
      const events = await apiEvents(tenant);
      expect(events).toEqual([
        {
          event_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          occurred_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          action: 'department.created',
          resource_type: 'department',
          resource_id: created.body.department_id,
          actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
          request_id: requestId,
          revision_before: null,
          revision_after: 1,
          changes: {
            name: { old: null, new: 'Research' },
            external_id: { old: null, new: 'hr-1' },
            parent_id: { old: null, new: null },
            order: { old: null, new: 1 },
          },
        },
      ]);
      expect(created.headers['x-request-id']).toBe(requestId);
    });

    it('writes none for a replay, a conflict or a missing parent', async () => {
      const tenant = await createTenant(context.database);
      const key = randomUUID();
      await createDepartment(tenant, { name: 'Sales' }, key).expect(201);
      await createDepartment(tenant, { name: 'Sales' }, key).expect(201);
      await createDepartment(tenant, { name: 'sales' }).expect(409);
      await createDepartment(tenant, { name: 'Child', parent_id: randomUUID() }).expect(422);
      await createDepartment(tenant, { name: '' }).expect(400);
      const events = await apiEvents(tenant);
      expect(events.map((event) => [event.action, event.changes.name?.new])).toEqual([['department.created', 'Sales']]);
    });
  });

  describe('GET /api/openapi/v1/audit-events', () => {
    it('is tenant-isolated and needs admin.v1.audit.read', async () => {
      const [one, two] = [await createTenant(context.database), await createTenant(context.database)];
      await createDepartment(one, { name: 'Mine' }).expect(201);
      expect(await apiEvents(two)).toEqual([]);
      const withoutScope = await createApiKey(context.database, one.organizationId, [DirectoryScope.Read]);
      const refused = await list(withoutScope);
      expect({ status: refused.response.status, code: refused.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
      const reader = await createApiKey(context.database, one.organizationId, [AuditEventsScope.Read]);
      expect((await apiEvents(reader)).map((event) => event.changes.name?.new)).toEqual(['Mine']);
    });

    it("accepts the actions of the application's own modules in its filters and in event_types, and no other", async () => {
      const tenant = await createTenant(context.database);
      const withLate = await startTestApp(context.database, { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' }, [LateGadgetsModule]);
      try {
        const listOn = (app: typeof withLate | typeof context.app, query: Record<string, string>) =>
          app.http().get('/api/openapi/v1/audit-events').query(query).set('Authorization', tenant.bearer);
        const filtered = await listOn(withLate, { action: late, resource_type: 'late_gadget' });
        expect({ status: filtered.status, items: filtered.body.items }).toEqual({ status: 200, items: [] });
        for (const [app, action] of [[withLate, 'never_defined.created'], [context.app, late]] as const) {
          const refused = await listOn(app, { action });
          expect({ status: refused.status, code: refused.body.code, field: refused.body.details?.field }).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'action' });
        }
        const documented = (await withLate.http().get('/docs-json').expect(200)).body.components.schemas.AuditEventDto.properties.action.enum;
        expect(documented).toContain(late);
        expect((await context.http().get('/docs-json').expect(200)).body.components.schemas.AuditEventDto.properties.action.enum).not.toContain(late);

        const subscribe = (eventTypes: string[]) =>
          withLate.http().post('/api/openapi/v1/webhook-endpoints').set('Authorization', tenant.bearer).send({ url: 'http://127.0.0.1:9/hook', event_types: eventTypes });
        expect((await subscribe([late])).status).toBe(201);
        const refused = await subscribe(['never_defined.created']);
        expect({ status: refused.status, code: refused.body.code, field: refused.body.details?.field }).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'event_types' });
      } finally {
        await withLate.close();
      }
    });

    it('pages newest first without gaps or repeats, and refuses a token of other filters', async () => {
      const tenant = await createTenant(context.database);
      for (let i = 1; i <= 5; i++) await createDepartment(tenant, { name: `D${i}` }).expect(201);
      const names: unknown[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await list(tenant, { action: 'department.created', page_size: 2, ...(token ? { page_token: token } : {}) });
        expect(page.response.status).toBe(200);
        names.push(...page.data!.items.map((event) => event.changes.name?.new));
        token = page.data!.next_page_token ?? undefined;
        pages++;
      } while (token);
      expect({ names, pages }).toEqual({ names: ['D5', 'D4', 'D3', 'D2', 'D1'], pages: 3 });
      const first = await list(tenant, { action: 'department.created', page_size: 2 });
      const mixed = await list(tenant, { action: 'api_key.created', page_token: first.data!.next_page_token! });
      expect({ status: mixed.response.status, field: mixed.error?.details?.field }).toEqual({ status: 400, field: 'page_token' });
    });

    it('filters by resource, action, actor key and time', async () => {
      const tenant = await createTenant(context.database);
      const second = await createApiKey(context.database, tenant.organizationId, [DirectoryScope.Manage]);
      const a = (await createDepartment(tenant, { name: 'A' }).expect(201)).body.department_id as string;
      const between = new Date(Date.now() + 5);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const b = (await createDepartment(second, { name: 'B' }).expect(201)).body.department_id as string;
      const ids = async (query: ListQuery) => (await apiEvents(tenant, query)).map((event) => event.resource_id);
      expect(await ids({ resource_type: 'department', resource_id: a })).toEqual([a]);
      expect(await ids({ resource_type: 'upload' })).toEqual([]);
      expect(await ids({ action: 'department.created' })).toEqual([b, a]);
      expect(await ids({ actor_api_key_id: second.apiKeyId.toUpperCase() })).toEqual([b]);
      expect(await ids({ since: between.toISOString() })).toEqual([b]);
      expect(await ids({ until: between.toISOString() })).toEqual([a]);
    });

    it('refuses bad filters with 400 naming the parameter', async () => {
      const tenant = await createTenant(context.database);
      const cases: Array<[Record<string, string>, string]> = [
        [{ since: '2026-01-01' }, 'since'],
        [{ until: '2026-01-01T00:00:00' }, 'until'],
        [{ action: 'department.archived' }, 'action'],
        [{ resource_type: 'organization' }, 'resource_type'],
        [{ actor_api_key_id: 'nope' }, 'actor_api_key_id'],
        [{ page_token: 'made-up' }, 'page_token'],
      ];
      for (const [query, field] of cases) {
        const answer = await context.http().get('/api/openapi/v1/audit-events').query(query).set('Authorization', tenant.bearer);
        expect({ query, status: answer.status, field: answer.body.details?.field }).toEqual({ query, status: 400, field });
      }
    });

    it('refuses an impossible date-time, or one before 1970 (no event id can be built from it), with 400 naming the parameter, never 500', async () => {
      const tenant = await createTenant(context.database);
      const cases: Array<[Record<string, string>, string, string]> = [
        [{ since: '1969-12-31T23:59:59Z' }, 'since', 'invalid_value'],
        [{ until: '1969-12-31T23:59:59.999Z' }, 'until', 'invalid_value'],
        [{ since: '1970-01-01T00:59:59+01:00' }, 'since', 'invalid_value'],
        [{ since: '0001-01-01T00:00:00Z' }, 'since', 'invalid_value'],
        [{ until: '0000-01-01T00:00:00Z' }, 'until', 'invalid_value'],
        [{ since: '2026-02-30T00:00:00Z' }, 'since', 'invalid_format'],
        [{ until: '2025-02-29T00:00:00Z' }, 'until', 'invalid_format'],
        [{ since: '2026-01-31T24:00:00Z' }, 'since', 'invalid_format'],
        [{ since: '2026-13-01T00:00:00Z' }, 'since', 'invalid_format'],
        [{ since: '2026-01-31T09:60:00Z' }, 'since', 'invalid_format'],
        [{ until: '2026-01-31T09:00:00+24:00' }, 'until', 'invalid_format'],
        [{ until: '+010000-01-01T00:00:00Z' }, 'until', 'invalid_format'],
      ];
      for (const [query, field, reason] of cases) {
        const answer = await context.http().get('/api/openapi/v1/audit-events').query(query).set('Authorization', tenant.bearer);
        expect({ query, status: answer.status, code: answer.body.code, field: answer.body.details?.field, reason: answer.body.details?.reason }).toEqual({
          query,
          status: 400,
          code: 'VALIDATION_FAILED',
          field,
          reason,
        });
      }
      // The edges that can be stored are instants like any other: the first millisecond of 1970 and a leap day.
      for (const query of [{ since: '1970-01-01T00:00:00Z' }, { since: '1970-01-01T01:00:00+01:00', until: '2028-02-29T23:59:59.999Z' }, { until: '9999-12-31T23:59:59-23:59' }]) {
        const answer = await context.http().get('/api/openapi/v1/audit-events').query(query).set('Authorization', tenant.bearer);
        expect({ query, status: answer.status }).toEqual({ query, status: 200 });
      }
    });
  });
  describe('expert_suite.updated', () => {
    const patch = (tenant: TestTenant, suiteId: string, body: object, headers: Record<string, string> = {}) => {
      let call = context.http().patch(suitePath(suiteId)).set('Authorization', tenant.bearer);
      for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
      return call.send(body);
    };
    const suiteEvents = (tenant: TestTenant, suiteId: string) => apiEvents(tenant, { resource_type: 'expert_suite', resource_id: suiteId });

    it('writes one event per changing PATCH, with the revisions and the changed fields only', async () => {
      const tenant = await createTenant(context.database);
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'helper');
      const requestId = `patch-${randomUUID()}`;
      await patch(tenant, suite.id, { display_name: 'Helper', description: '', clients: ['web', 'web', 'cli'] }, { 'X-Request-Id': requestId }).expect(200);
      expect(await suiteEvents(tenant, suite.id)).toEqual([
        expect.objectContaining({
          action: 'expert_suite.updated',
          resource_type: 'expert_suite',
          resource_id: suite.id,
          actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
          request_id: requestId,
          revision_before: 1,
          revision_after: 2,
          // description was already empty: not a change.
          changes: { display_name: { old: 'helper', new: 'Helper' }, clients: { old: null, new: ['web', 'cli'] } },
        }),
      ]);
    });

    it('writes none for a PATCH that changes nothing, a stale revision (409, 412), an unknown suite or a refused transition', async () => {
      const tenant = await createTenant(context.database);
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'same');
      await patch(tenant, suite.id, { display_name: 'same' }).expect(200);
      await patch(tenant, suite.id, {}).expect(200);
      await patch(tenant, suite.id, { display_name: 'other', expected_revision: 7 }).expect(409);
      await patch(tenant, suite.id, { display_name: 'other' }, { 'If-Match': '"7"' }).expect(412);
      await patch(tenant, randomUUID(), { display_name: 'other' }).expect(404);
      await patch(tenant, suite.id, { status: 'published' }).expect(422);
      await patch(tenant, suite.id, { display_name: 'other', category_id: randomUUID() }).expect(422);
      expect(await suiteEvents(tenant, suite.id)).toEqual([]);
    });

    it('records a category change, an applied package and an applied icon (the transaction path)', async () => {
      const tenant = await createTenant(context.database);
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'packaged');
      const category = await context.admin.createCategory(tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      await patch(tenant, suite.id, { category_id: category.id }).expect(200);
      const pkg = (await upload(context.app, tenant, 'package', await buildZip(packageEntries())).expect(201)).body;
      const applied = (await patch(tenant, suite.id, { upload_id: pkg.upload_id, status: 'published' }).expect(200)).body;
      const icon = (await upload(context.app, tenant, 'icon', ONE_PIXEL_PNG).expect(201)).body;
      await patch(tenant, suite.id, { icon_upload_id: icon.upload_id }).expect(200);
      await patch(tenant, suite.id, { icon_upload_id: icon.upload_id }).expect(200);

      const [iconEvent, packageEvent, categoryEvent] = await suiteEvents(tenant, suite.id);
      expect(categoryEvent).toMatchObject({ revision_before: 1, revision_after: 2, changes: { category_id: { old: null, new: category.id } } });
      expect(Object.keys(categoryEvent.changes)).toEqual(['category_id']);
      expect(packageEvent).toMatchObject({
        revision_before: 2,
        revision_after: 3,
        changes: {
          upload_id: { old: null, new: pkg.upload_id },
          has_package: { old: false, new: true },
          status: { old: 'draft', new: 'published' },
          version: { old: suite.version, new: applied.version },
          command_count: { old: 0, new: applied.command_count },
        },
      });
      for (const copied of ['commands', 'skills', 'connectors', 'readme_content', 'readme_content_cn']) expect(packageEvent.changes).not.toHaveProperty(copied);
      expect(iconEvent).toMatchObject({ revision_before: 3, revision_after: 4, changes: { icon_upload_id: { old: null, new: icon.upload_id } } });
    });

    it('gives concurrent PATCHes of one suite (two instances) one event each, their revisions and old values chained without gaps', async () => {
      const tenant = await createTenant(context.database);
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'contended');
      const otherApp = await startTestApp(context.database);
      try {
        const answers = await Promise.all(
          Array.from({ length: 16 }, (_, i) => {
            const via = i % 2 === 0 ? context.app : otherApp;
            // A third carry the revision they read first: at most one of those can win.
            const body = i % 3 === 0 ? { display_name: `name-${i}`, expected_revision: 1 } : { display_name: `name-${i}` };
            return via.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send(body);
          }),
        );
        const succeeded = answers.filter((answer) => answer.status === 200);
        expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
        const events = (await suiteEvents(tenant, suite.id)).sort((a, b) => a.revision_before! - b.revision_before!);
        expect(events).toHaveLength(succeeded.length);
        events.forEach((event, i) => {
          expect({ before: event.revision_before, after: event.revision_after }).toEqual({ before: i + 1, after: i + 2 });
          expect(event.changes.display_name.old).toBe(i === 0 ? 'contended' : events[i - 1].changes.display_name.new);
        });
        const answered = new Map(succeeded.map((answer) => [answer.body.revision as number, answer.body.display_name as string]));
        expect(new Map(events.map((event) => [event.revision_after!, event.changes.display_name.new]))).toEqual(answered);
      } finally {
        await otherApp.close();
      }
    });

    it('chains old values across concurrent PATCHes made both ways (one statement, and a transaction for clear_category)', async () => {
      const tenant = await createTenant(context.database);
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'mixed');
      const otherApp = await startTestApp(context.database);
      try {
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) => {
            const via = i % 2 === 0 ? context.app : otherApp;
            // clear_category needs the market item read: that PATCH runs in a transaction under the row lock.
            const body = i % 3 === 0 ? { display_name: `name-${i}`, clear_category: true } : { display_name: `name-${i}` };
            return via.http().patch(suitePath(suite.id)).set('Authorization', tenant.bearer).send(body);
          }),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
        const events = (await suiteEvents(tenant, suite.id)).sort((a, b) => a.revision_before! - b.revision_before!);
        expect(events).toHaveLength(12);
        events.forEach((event, i) => {
          expect({ before: event.revision_before, after: event.revision_after }).toEqual({ before: i + 1, after: i + 2 });
          expect(event.changes).toEqual({ display_name: { old: i === 0 ? 'mixed' : events[i - 1].changes.display_name.new, new: expect.any(String) } });
        });
        expect(new Set(events.map((event) => event.changes.display_name.new)).size).toBe(12);
        // The suite's internal last_change describes its current revision when one statement made it, and is NULL otherwise.
        const last = events[events.length - 1];
        const madeInTransaction = Number(String(last.changes.display_name.new).slice('name-'.length)) % 3 === 0;
        const stored = await context.database.prisma.expertSuite.findUniqueOrThrow({ where: { id: suite.id }, select: { lastChange: true } });
        expect(stored.lastChange).toEqual(madeInTransaction ? null : last.changes);
      } finally {
        await otherApp.close();
      }
    });
  });

  describe('upload.created', () => {
    it('writes one event per kept upload and none for a refused one', async () => {
      const tenant = await createTenant(context.database);
      const icon = (await upload(context.app, tenant, 'icon', ONE_PIXEL_PNG).expect(201)).body;
      await upload(context.app, tenant, 'icon', Buffer.from('not an image')).expect(400);
      const events = await apiEvents(tenant, { resource_type: 'upload' });
      expect(events).toEqual([
        expect.objectContaining({
          action: 'upload.created',
          resource_id: icon.upload_id,
          actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
          changes: {
            kind: { old: null, new: 'icon' },
            size: { old: null, new: ONE_PIXEL_PNG.length },
            sha256: { old: null, new: icon.sha256 },
            content_type: { old: null, new: 'image/png' },
            package: { old: null, new: null },
            expires_at: { old: null, new: icon.expires_at },
          },
        }),
      ]);
    });
  });

  describe('CLI changes (actor cli)', () => {
    const CLI = { actor: { type: 'cli', api_key_id: null }, request_id: null };

    it('audits keys issued and revoked, without their secrets, and a revocation only once', async () => {
      const tenant = await createTenant(context.database);
      const issued = await context.admin.createApiKey(tenant.organizationId, [DirectoryScope.Read]);
      await context.admin.revokeApiKey(issued.id);
      await context.admin.revokeApiKey(issued.id);
      const events = await cliEvents(tenant, { resource_id: issued.id });
      expect(events).toEqual([
        expect.objectContaining({ ...CLI, action: 'api_key.revoked', resource_type: 'api_key', changes: { revoked_at: { old: null, new: expect.stringMatching(/Z$/) } } }),
        expect.objectContaining({
          ...CLI,
          action: 'api_key.created',
          changes: { key: { old: null, new: 'redacted' }, prefix: { old: null, new: expect.any(String) }, scopes: { old: null, new: [DirectoryScope.Read] } },
        }),
      ]);
      const stored = await context.database.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
      const text = JSON.stringify(events);
      expect({ key: text.includes(issued.key), hash: text.includes(stored.keyHash) }).toEqual({ key: false, hash: false });
      expect(issued.key.startsWith(events[1].changes.prefix.new as string)).toBe(true);
    });

    it('audits a category, a suite and a moved subscription anchor (setting the same anchor again is no change)', async () => {
      const tenant = await createTenant(context.database);
      const category = await context.admin.createCategory(tenant.organizationId, 'Finance');
      const suite = await context.admin.createExpertSuite(tenant.organizationId, 'cli-suite');
      const before = await context.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: tenant.organizationId } });
      await context.admin.setSubscriptionAnchor(tenant.organizationId, '2026-01-31T09:00:00Z');
      await context.admin.setSubscriptionAnchor(tenant.organizationId, '2026-01-31T09:00:00.000Z');
      await expect(context.admin.createCategory(tenant.organizationId, 'Finance')).rejects.toThrow();
      const events = await cliEvents(tenant);
      expect(events.filter((event) => event.action !== 'api_key.created')).toEqual([
        expect.objectContaining({
          ...CLI,
          action: 'subscription.updated',
          resource_type: 'subscription',
          resource_id: tenant.organizationId,
          changes: { anchor_at: { old: before.anchorAt.toISOString(), new: '2026-01-31T09:00:00.000Z' } },
        }),
        expect.objectContaining({
          ...CLI,
          action: 'expert_suite.created',
          resource_id: suite.id,
          revision_before: null,
          revision_after: 1,
          changes: { name: { old: null, new: 'cli-suite' }, display_name: { old: null, new: 'cli-suite' }, status: { old: null, new: 'draft' } },
        }),
        expect.objectContaining({ ...CLI, action: 'category.created', resource_id: category.id, changes: { name: { old: null, new: 'Finance' } } }),
      ]);
    });
  });

  describe('retention', () => {
    it('purges events older than AUDIT_RETENTION_DAYS in batches, two purges at once deleting each event once', async () => {
      const tenant = await createTenant(context.database);
      const day = 24 * 60 * 60 * 1000;
      const insert = (at: Date) =>
        context.database.prisma.$executeRaw(Prisma.sql`
          INSERT INTO audit_events (id, organization_id, occurred_at, action, resource_type, resource_id, actor_type)
          VALUES (${uuidV7(at)}::uuid, ${tenant.organizationId}::uuid, ${at}, 'category.created', 'category', ${randomUUID()}, 'cli')`);
      const now = Date.now();
      for (let i = 0; i < 7; i++) await insert(new Date(now - 366 * day - i * 1000));
      await insert(new Date(now - 364 * day));
      const purger = context.app.app.get(AuditPurger);
      const [one, two] = await Promise.all([purger.purge(2), purger.purge(2)]);
      const left = await cliEvents(tenant, { resource_type: 'category' });
      expect({ purged: one + two, left: left.map((event) => event.occurred_at) }).toEqual({ purged: 7, left: [new Date(now - 364 * day).toISOString()] });
      expect(await purger.purge()).toBe(0);
    });
  });
});
