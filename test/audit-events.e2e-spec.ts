import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { AuditEventsScope } from '../src/modules/audit-events/audit-events.scopes';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import type { paths } from './client/schema';
import { createApiKey, createTenant, useTestApp, type TestTenant } from './support/test-app';

const DEPARTMENTS = '/api/openapi/v1/departments';

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
          revision_after: null,
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
        [{ action: 'department.deleted' }, 'action'],
        [{ resource_type: 'organization' }, 'resource_type'],
        [{ actor_api_key_id: 'nope' }, 'actor_api_key_id'],
        [{ page_token: 'made-up' }, 'page_token'],
      ];
      for (const [query, field] of cases) {
        const answer = await context.http().get('/api/openapi/v1/audit-events').query(query).set('Authorization', tenant.bearer);
        expect({ query, status: answer.status, field: answer.body.details?.field }).toEqual({ query, status: 400, field });
      }
    });
  });
});
