import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { scopeCatalog } from '../src/common/auth/scope-catalog';
import { __Plural__Scope } from '../src/modules/__kebab__/__kebab__.scopes';
import type { paths } from './client/schema';
import { createApiKey, createTenant, useTestApp } from './support/test-app';

const PATH = '/api/openapi/v1/__kebab__';

/** The __kebab__ module as `npm run new:module` made it, driven through the typed client (test/client/schema.d.ts). */
describe('__kebab__', () => {
  const context = useTestApp({ listen: true });
  let client: Client<paths>;

  beforeAll(() => {
    client = clientFor(context.tenant.bearer);
  });

  const clientFor = (bearer: string) => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: bearer } });
  const create = (name: string, key: string = randomUUID(), via: Client<paths> = client) =>
    via.POST('/api/openapi/v1/__kebab__', { params: { header: { 'Idempotency-Key': key } }, body: { name } });

  it('creates with an Idempotency-Key (201, the name trimmed), replays the same key, and reads it back by id', async () => {
    const key = randomUUID();
    const first = await create('  Alpha  ', key);
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual({ __singular_snake___id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Alpha', created_at: expect.stringMatching(/Z$/) });
    const replay = await create('  Alpha  ', key);
    expect({ status: replay.response.status, data: replay.data, replayed: replay.response.headers.get('Idempotent-Replayed') }).toEqual({ status: 201, data: first.data, replayed: 'true' });

    const id = first.data!.__singular_snake___id;
    // The create wrote one audit event, the replay none.
    const events = await client.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: '__singular_snake__', resource_id: id } } });
    expect(events.data!.items.map((event) => ({ action: event.action, actor: event.actor, changes: event.changes }))).toEqual([
      { action: '__singular_snake__.created', actor: { type: 'api_key', api_key_id: context.tenant.apiKeyId }, changes: { name: { old: null, new: 'Alpha' } } },
    ]);
    const read = await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id.toUpperCase() } } });
    expect({ status: read.response.status, data: read.data }).toEqual({ status: 200, data: first.data });
  });

  it('refuses a missing Idempotency-Key, a bad body and a taken name with the error body', async () => {
    const missingKey = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ name: 'x' });
    expect({ status: missingKey.status, code: missingKey.body.code }).toEqual({ status: 400, code: 'IDEMPOTENCY_KEY_MISSING' });
    const blank = await create('   ');
    expect({ status: blank.response.status, code: blank.error?.code, field: blank.error?.details?.field }).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'name' });
    const unknownField = await context.http().post(PATH).set('Authorization', context.tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: 'y', colour: 'red' });
    expect({ status: unknownField.status, code: unknownField.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect((await create('Taken')).response.status).toBe(201);
    const taken = await create('Taken');
    expect({ status: taken.response.status, code: taken.error?.code }).toEqual({ status: 409, code: '__SINGULAR_UPPER___NAME_CONFLICT' });
  });

  it("answers 404 for an unknown id and for another organization's, 400 for an id that is no uuid", async () => {
    const other = await createTenant(context.database);
    const theirs = (await create('Theirs', randomUUID(), clientFor(other.bearer))).data!;
    for (const id of [randomUUID(), theirs.__singular_snake___id]) {
      const missing = await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } } });
      expect({ status: missing.response.status, code: missing.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    const notUuid = await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: 'nope' } } });
    expect(notUuid.response.status).toBe(400);
  });

  it('lists page by page in creation order, and refuses a token of another organization', async () => {
    const tenant = await createTenant(context.database);
    const own = clientFor(tenant.bearer);
    const names = ['One', 'Two', 'Three', 'Four', 'Five'];
    for (const name of names) expect((await create(name, randomUUID(), own)).response.status).toBe(201);
    const seen: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await own.GET('/api/openapi/v1/__kebab__', { params: { query: { page_size: 2, page_token: pageToken } } });
      expect(page.response.status).toBe(200);
      seen.push(...page.data!.items.map((item) => item.name));
      pageToken = page.data!.next_page_token ?? undefined;
      pages += 1;
    } while (pageToken !== undefined);
    expect({ seen, pages }).toEqual({ seen: names, pages: 3 });

    const first = await own.GET('/api/openapi/v1/__kebab__', { params: { query: { page_size: 1 } } });
    const foreign = await client.GET('/api/openapi/v1/__kebab__', { params: { query: { page_token: first.data!.next_page_token! } } });
    expect({ status: foreign.response.status, code: foreign.error?.code, field: foreign.error?.details?.field }).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'page_token' });
  });

  it('needs admin.v1.__kebab__.manage to create and admin.v1.__kebab__.read to read, both in the catalog and the document', async () => {
    expect(scopeCatalog().map((scope) => scope.name)).toEqual(expect.arrayContaining([__Plural__Scope.Read, __Plural__Scope.Manage]));
    const readOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [__Plural__Scope.Read])).bearer);
    const manageOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [__Plural__Scope.Manage])).bearer);
    const refusedCreate = await create('Nope', randomUUID(), readOnly);
    expect({ status: refusedCreate.response.status, code: refusedCreate.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const refusedList = await manageOnly.GET('/api/openapi/v1/__kebab__', { params: { query: {} } });
    expect({ status: refusedList.response.status, code: refusedList.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });

    const document = (await context.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> };
    expect({
      create: document.paths[PATH].post['x-required-scope'],
      list: document.paths[PATH].get['x-required-scope'],
      get: document.paths[`${PATH}/{__singular_snake___id}`].get['x-required-scope'],
    }).toEqual({ create: 'admin.v1.__kebab__.manage', list: 'admin.v1.__kebab__.read', get: 'admin.v1.__kebab__.read' });
  });
});
