import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { APP_REGISTRIES } from '../src/app.module';
import { __Plural__Scope } from '../src/modules/__kebab__/__kebab__.scopes';
import type { paths } from './client/schema';
import { createApiKey, createTenant, useTestApp } from './support/test-app';

const PATH = '/api/openapi/v1/__kebab__';

/**
 * The __kebab__ module as `npm run new:module` made it, driven through the typed client (test/client/schema.d.ts).
 * Each call names its path as a literal: test/openapi-client.e2e-spec.ts finds the operations called here by it.
 */
describe('__kebab__', () => {
  const context = useTestApp({ listen: true });
  let client: Client<paths>;

  beforeAll(() => {
    client = clientFor(context.tenant.bearer);
  });

  const clientFor = (bearer: string) => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: bearer } });
  const create = (name: string, key: string = randomUUID(), via: Client<paths> = client) =>
    via.POST('/api/openapi/v1/__kebab__', { params: { header: { 'Idempotency-Key': key } }, body: { name } });
  const createdId = async (name: string) => (await create(name)).data!.__singular_snake___id;
  const readOver = (id: string) => context.http().get(`${PATH}/${id}`).set('Authorization', context.tenant.bearer);
  const actionsOf = async (id: string) =>
    (await client.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: '__singular_snake__', resource_id: id } } })).data!.items.map((event) => ({
      action: event.action,
      revisions: [event.revision_before, event.revision_after],
      changes: event.changes,
    }));

  it('creates with an Idempotency-Key (201, the name trimmed), replays the same key, and reads it back by id', async () => {
    const key = randomUUID();
    const first = await create('  Alpha  ', key);
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual({
      __singular_snake___id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Alpha',
      revision: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: first.data!.created_at,
    });
    const replay = await create('  Alpha  ', key);
    expect({ status: replay.response.status, data: replay.data, replayed: replay.response.headers.get('Idempotent-Replayed') }).toEqual({ status: 201, data: first.data, replayed: 'true' });

    const id = first.data!.__singular_snake___id;
    // The create wrote one audit event, the replay none.
    const events = await client.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: '__singular_snake__', resource_id: id } } });
    expect(events.data!.items.map((event) => ({ action: event.action, actor: event.actor, changes: event.changes }))).toEqual([
      { action: '__singular_snake__.created', actor: { type: 'api_key', api_key_id: context.tenant.apiKeyId }, changes: { name: { old: null, new: 'Alpha' } } },
    ]);
    const read = await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id.toUpperCase() } } });
    expect({ status: read.response.status, data: read.data, etag: read.response.headers.get('ETag') }).toEqual({ status: 200, data: first.data, etag: '"1"' });
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

  it('answers 304 to If-None-Match holding the current ETag, and 200 with the new one after a change', async () => {
    const id = await createdId('Tagged');
    const notModified = await readOver(id).set('If-None-Match', '"1"').expect(304);
    expect({ etag: notModified.headers.etag, body: notModified.text }).toEqual({ etag: '"1"', body: '' });
    // fetch() adds Cache-Control: no-cache to a request given If-None-Match; the answer is 304 all the same.
    await readOver(id).set('If-None-Match', 'W/"1"').set('Cache-Control', 'no-cache').expect(304);
    await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { name: 'Retagged' } });
    const changed = await readOver(id).set('If-None-Match', '"1"').expect(200);
    expect({ etag: changed.headers.etag, revision: changed.body.revision }).toEqual({ etag: '"2"', revision: 2 });
  });

  it('renames with PATCH (revision + 1, the next ETag, one event with the old and new name); the same name again changes nothing', async () => {
    const created = (await create('Before')).data!;
    const id = created.__singular_snake___id;
    const renamed = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': '"1"' } }, body: { name: '  After  ' } });
    expect({ status: renamed.response.status, etag: renamed.response.headers.get('ETag'), data: renamed.data }).toEqual({
      status: 200,
      etag: '"2"',
      data: { ...created, name: 'After', revision: 2, updated_at: expect.stringMatching(/Z$/) },
    });
    const same = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { expected_revision: 2, name: 'After' } });
    const empty = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: {} });
    for (const noOp of [same, empty]) expect({ status: noOp.response.status, etag: noOp.response.headers.get('ETag'), data: noOp.data }).toEqual({ status: 200, etag: '"2"', data: renamed.data });
    expect(await actionsOf(id)).toEqual([
      { action: '__singular_snake__.updated', revisions: [1, 2], changes: { name: { old: 'Before', new: 'After' } } },
      { action: '__singular_snake__.created', revisions: [null, 1], changes: { name: { old: null, new: 'Before' } } },
    ]);
  });

  it('refuses a stale expected_revision (409) and a stale If-Match (412) with the current revision, and changes nothing', async () => {
    const id = await createdId('Guarded');
    expect((await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { name: 'Guarded 2' } })).response.status).toBe(200);
    const stale = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { expected_revision: 1, name: 'Lost' } });
    expect({ status: stale.response.status, code: stale.error?.code, details: stale.error?.details }).toEqual({
      status: 409,
      code: 'REVISION_CONFLICT',
      details: { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '2' },
    });
    const staleTag = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': '"1"' } }, body: { name: 'Lost' } });
    expect({ status: staleTag.response.status, code: staleTag.error?.code, details: staleTag.error?.details }).toEqual({
      status: 412,
      code: 'PRECONDITION_FAILED',
      details: { field: 'If-Match', reason: 'revision_mismatch', suggestion: '2' },
    });
    const staleDelete = await client.DELETE('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': '"1"' } } });
    expect({ status: staleDelete.response.status, code: staleDelete.error?.code }).toEqual({ status: 412, code: 'PRECONDITION_FAILED' });
    const mismatched = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': '"2"' } }, body: { expected_revision: 1, name: 'Lost' } });
    expect({ status: mismatched.response.status, details: mismatched.error?.details }).toEqual({ status: 400, details: { field: 'expected_revision', reason: 'conflicting_fields' } });
    const weak = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': 'W/"2"' } }, body: { name: 'Lost' } });
    expect({ status: weak.response.status, details: weak.error?.details }).toEqual({ status: 400, details: { field: 'If-Match', reason: 'invalid_format' } });
    const absent = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-None-Match': '*' } }, body: { name: 'Lost' } });
    expect({ status: absent.response.status, code: absent.error?.code }).toEqual({ status: 412, code: 'PRECONDITION_FAILED' });
    const taken = await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { name: (await create('Taken elsewhere')).data!.name } });
    expect({ status: taken.response.status, code: taken.error?.code }).toEqual({ status: 409, code: '__SINGULAR_UPPER___NAME_CONFLICT' });

    const read = await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } } });
    expect({ name: read.data!.name, revision: read.data!.revision }).toEqual({ name: 'Guarded 2', revision: 2 });
    expect((await actionsOf(id)).map((event) => event.action)).toEqual(['__singular_snake__.updated', '__singular_snake__.created']);
  });

  it('deletes with DELETE (204, If-Match honoured, one event with the last values); then 404 everywhere and the name is free', async () => {
    const id = await createdId('Doomed');
    const deleted = await client.DELETE('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id }, header: { 'If-Match': '"1"' } } });
    expect(deleted.response.status).toBe(204);
    for (const again of [
      await client.GET('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } } }),
      await client.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { name: 'Ghost' } }),
      await client.DELETE('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } } }),
    ]) {
      expect({ status: again.response.status, code: again.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    expect(await actionsOf(id)).toEqual([
      { action: '__singular_snake__.deleted', revisions: [1, null], changes: { name: { old: 'Doomed', new: null } } },
      { action: '__singular_snake__.created', revisions: [null, 1], changes: { name: { old: null, new: 'Doomed' } } },
    ]);
    expect((await create('Doomed')).response.status).toBe(201);
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

  it('needs admin.v1.__kebab__.manage to change and admin.v1.__kebab__.read to read, both in the catalog and the document', async () => {
    expect(APP_REGISTRIES.scopes.names).toEqual(expect.arrayContaining([__Plural__Scope.Read, __Plural__Scope.Manage]));
    const readOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [__Plural__Scope.Read])).bearer);
    const manageOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [__Plural__Scope.Manage])).bearer);
    const refusedCreate = await create('Nope', randomUUID(), readOnly);
    expect({ status: refusedCreate.response.status, code: refusedCreate.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const refusedList = await manageOnly.GET('/api/openapi/v1/__kebab__', { params: { query: {} } });
    expect({ status: refusedList.response.status, code: refusedList.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const id = await createdId('Kept');
    const refusedPatch = await readOnly.PATCH('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } }, body: { name: 'Nope' } });
    const refusedDelete = await readOnly.DELETE('/api/openapi/v1/__kebab__/{__singular_snake___id}', { params: { path: { __singular_snake___id: id } } });
    expect([refusedPatch.response.status, refusedDelete.response.status]).toEqual([403, 403]);

    const document = (await context.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> };
    expect({
      create: document.paths[PATH].post['x-required-scope'],
      list: document.paths[PATH].get['x-required-scope'],
      get: document.paths[`${PATH}/{__singular_snake___id}`].get['x-required-scope'],
      update: document.paths[`${PATH}/{__singular_snake___id}`].patch['x-required-scope'],
      delete: document.paths[`${PATH}/{__singular_snake___id}`].delete['x-required-scope'],
    }).toEqual({
      create: 'admin.v1.__kebab__.manage',
      list: 'admin.v1.__kebab__.read',
      get: 'admin.v1.__kebab__.read',
      update: 'admin.v1.__kebab__.manage',
      delete: 'admin.v1.__kebab__.manage',
    });
  });
});
