import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { scopeCatalog } from '../src/common/auth/scope-catalog';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import type { paths } from './client/schema';
import { createApiKey, createTenant, testDatabaseUrl, until, useTestApp, useTestDatabase, useTwoInstances, type TestTenant } from './support/test-app';

const PATH = '/api/openapi/v1/users';

/**
 * The users of the directory (CONTRACT.md section 11) over HTTP, through the typed client
 * (test/client/schema.d.ts) and the OpenAPI response check every e2e answer passes. Each call
 * names its path as a literal: test/openapi-client.e2e-spec.ts finds the operations called here by it.
 */
describe('users', () => {
  const shared = useTestDatabase();
  const context = useTestApp({ listen: true, database: shared });
  let client: Client<paths>;

  beforeAll(() => {
    client = clientFor(context.tenant.bearer);
  });

  const clientFor = (bearer: string) => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: bearer } });
  type NewUser = paths['/api/openapi/v1/users']['post']['requestBody']['content']['application/json'];
  const create = (body: NewUser, key: string = randomUUID(), via: Client<paths> = client) =>
    via.POST('/api/openapi/v1/users', { params: { header: { 'Idempotency-Key': key } }, body });
  const createdId = async (userName: string, body: Partial<NewUser> = {}) => (await create({ user_name: userName, ...body })).data!.user_id;
  const department = async (name = `D ${randomUUID().slice(0, 8)}`, parentId: string | null = null, via: Client<paths> = client) =>
    (await via.POST('/api/openapi/v1/departments', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { name, parent_id: parentId } })).data!.department_id;
  const rawPost = (body: unknown) => context.http().post(PATH).set('Authorization', context.tenant.bearer).set('Idempotency-Key', randomUUID()).send(body as object);
  const rawPatch = (id: string, body: unknown) => context.http().patch(`${PATH}/${id}`).set('Authorization', context.tenant.bearer).send(body as object);
  const readOver = (id: string) => context.http().get(`${PATH}/${id}`).set('Authorization', context.tenant.bearer);
  const refusal = (response: { status: number; body: { code?: string; details?: { field?: string; reason?: string } } }) => ({
    status: response.status,
    code: response.body.code,
    field: response.body.details?.field,
    reason: response.body.details?.reason,
  });
  const actionsOf = async (id: string) =>
    (await client.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: 'user', resource_id: id } } })).data!.items.map((event) => ({
      action: event.action,
      revisions: [event.revision_before, event.revision_after],
      changes: event.changes,
    }));

  it('creates with an Idempotency-Key (201, user_name trimmed and in NFC, memberships in order, the first primary), replays the key, reads it back with its ETag', async () => {
    const [a, b] = [await department(), await department()];
    const key = randomUUID();
    const body = { user_name: '  Zoe\u0301  ', email: 'Zoe@Example.com', external_id: 'emp-1', given_name: 'Zoé', department_ids: [b.toUpperCase(), a] };
    const first = await create(body, key);
    expect({ status: first.response.status, data: first.data }).toEqual({
      status: 201,
      data: {
        user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        user_name: 'Zoé',
        display_name: null,
        given_name: 'Zoé',
        family_name: null,
        email: 'Zoe@Example.com',
        external_id: 'emp-1',
        active: true,
        department_ids: [b, a],
        primary_department_id: b,
        revision: 1,
        created_at: expect.stringMatching(/Z$/),
        updated_at: first.data!.created_at,
      },
    });
    const replay = await create(body, key);
    expect({ status: replay.response.status, data: replay.data, replayed: replay.response.headers.get('Idempotent-Replayed') }).toEqual({ status: 201, data: first.data, replayed: 'true' });
    const id = first.data!.user_id;
    expect(await actionsOf(id)).toEqual([
      {
        action: 'user.created',
        revisions: [null, 1],
        changes: {
          user_name: { old: null, new: 'Zoé' },
          display_name: { old: null, new: null },
          given_name: { old: null, new: 'Zoé' },
          family_name: { old: null, new: null },
          email: { old: null, new: 'Zoe@Example.com' },
          external_id: { old: null, new: 'emp-1' },
          active: { old: null, new: true },
          department_ids: { old: null, new: [b, a] },
          primary_department_id: { old: null, new: b },
        },
      },
    ]);
    const read = await client.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id.toUpperCase() } } });
    expect({ status: read.response.status, data: read.data, etag: read.response.headers.get('ETag') }).toEqual({ status: 200, data: first.data, etag: '"1"' });
    await readOver(id).set('If-None-Match', '"1"').expect(304);
  });

  it('names the field of every bad value of the body, and writes nothing', async () => {
    const uuid = randomUUID();
    const cases: [unknown, string, string | undefined][] = [
      [{}, 'user_name', 'required'],
      [{ user_name: '   ' }, 'user_name', 'must_not_be_blank'],
      [{ user_name: '\u200b' }, 'user_name', 'must_not_be_blank'],
      [{ user_name: 'a'.repeat(256) }, 'user_name', 'too_long'],
      [{ user_name: 5 }, 'user_name', 'invalid_type'],
      [{ user_name: 'x', display_name: 'a'.repeat(256) }, 'display_name', 'too_long'],
      [{ user_name: 'x', display_name: 5 }, 'display_name', 'invalid_type'],
      [{ user_name: 'x', given_name: 'a'.repeat(256) }, 'given_name', 'too_long'],
      [{ user_name: 'x', family_name: ['Lee'] }, 'family_name', 'invalid_type'],
      [{ user_name: 'x', email: 'Ann <ann@example.com>' }, 'email', 'invalid_format'],
      [{ user_name: 'x', email: 'ann.example.com' }, 'email', 'invalid_format'],
      [{ user_name: 'x', email: ' ann@example.com' }, 'email', 'invalid_format'],
      [{ user_name: 'x', email: `${'a'.repeat(60)}@${'b'.repeat(190)}.com` }, 'email', undefined],
      [{ user_name: 'x', external_id: '' }, 'external_id', 'must_not_be_blank'],
      [{ user_name: 'x', external_id: 'emp-1 ' }, 'external_id', 'invalid_format'],
      [{ user_name: 'x', external_id: 'a'.repeat(513) }, 'external_id', 'too_long'],
      [{ user_name: 'x', active: 'yes' }, 'active', 'invalid_type'],
      [{ user_name: 'x', active: null }, 'active', 'invalid_type'],
      [{ user_name: 'x', department_ids: uuid }, 'department_ids', 'invalid_type'],
      [{ user_name: 'x', department_ids: ['nope'] }, 'department_ids', 'invalid_format'],
      [{ user_name: 'x', department_ids: [uuid, uuid.toUpperCase()] }, 'department_ids', 'duplicate'],
      [{ user_name: 'x', department_ids: Array.from({ length: 51 }, () => randomUUID()) }, 'department_ids', 'too_long'],
      [{ user_name: 'x', primary_department_id: 'nope' }, 'primary_department_id', 'invalid_format'],
      [{ user_name: 'x', primary_department_id: uuid }, 'primary_department_id', 'conflicting_fields'],
      [{ user_name: 'x', department_ids: [uuid], primary_department_id: randomUUID() }, 'primary_department_id', 'conflicting_fields'],
      [{ user_name: 'x', department_ids: [uuid], primary_department_id: null }, 'primary_department_id', 'conflicting_fields'],
      [{ user_name: 'x', user_id: uuid }, 'user_id', 'unknown_field'],
      [{ user_name: 'x', colour: 'red' }, 'colour', 'unknown_field'],
    ];
    for (const [body, field, reason] of cases) {
      const answer = refusal(await rawPost(body));
      expect({ body, ...answer }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED', field, reason: reason ?? expect.any(String) });
    }
    const missingKey = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ user_name: 'x' });
    expect(refusal(missingKey)).toMatchObject({ status: 400, code: 'IDEMPOTENCY_KEY_MISSING', field: 'Idempotency-Key' });
    const list = await client.GET('/api/openapi/v1/users', { params: { query: { user_name: 'x' } } });
    expect(list.data!.items).toEqual([]);
  });

  it('answers conflicts (409 by case folding and external_id, 422 for another organization\'s or an unknown department) and creates nothing', async () => {
    const other = await createTenant(context.database);
    const theirs = await department('Theirs', null, clientFor(other.bearer));
    await createdId('STRASSE', { external_id: 'emp-taken' });
    const cases: [NewUser, number, string, string | undefined][] = [
      [{ user_name: 'straße' }, 409, 'USER_NAME_CONFLICT', undefined],
      [{ user_name: 'free-1', external_id: 'emp-taken' }, 409, 'EXTERNAL_ID_CONFLICT', undefined],
      [{ user_name: 'free-2', department_ids: [theirs] }, 422, 'DEPARTMENT_NOT_FOUND', 'department_ids'],
      [{ user_name: 'free-3', department_ids: [await department(), randomUUID()] }, 422, 'DEPARTMENT_NOT_FOUND', 'department_ids'],
    ];
    for (const [body, status, code, field] of cases) {
      const answer = await create(body);
      expect({ status: answer.response.status, code: answer.error?.code, field: answer.error?.details?.field }).toEqual({ status, code, field });
    }
    const free = await client.GET('/api/openapi/v1/users', { params: { query: { user_name: 'FREE-2' } } });
    expect(free.data!.items).toEqual([]);
  });

  it('changes any field with PATCH (revision + 1, new ETag, one event with only the changed fields); a no-op keeps the revision and writes nothing', async () => {
    const [a, b] = [await department(), await department()];
    const created = (await create({ user_name: 'Before', email: 'b@example.com', department_ids: [a] })).data!;
    const id = created.user_id;
    const changed = await client.PATCH('/api/openapi/v1/users/{user_id}', {
      params: { path: { user_id: id }, header: { 'If-Match': '"1"' } },
      body: { user_name: ' After ', email: 'b@example.com', display_name: 'Aft', active: false, department_ids: [b, a], primary_department_id: b },
    });
    expect({ status: changed.response.status, etag: changed.response.headers.get('ETag'), data: changed.data }).toEqual({
      status: 200,
      etag: '"2"',
      data: { ...created, user_name: 'After', display_name: 'Aft', active: false, department_ids: [a, b], primary_department_id: b, revision: 2, updated_at: expect.stringMatching(/Z$/) },
    });
    const noOps = [
      await client.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } }, body: { expected_revision: 2, user_name: 'After', department_ids: [b, a] } }),
      await client.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id }, header: { 'If-Match': '*' } }, body: {} }),
    ];
    for (const noOp of noOps) expect({ status: noOp.response.status, etag: noOp.response.headers.get('ETag'), data: noOp.data }).toEqual({ status: 200, etag: '"2"', data: changed.data });
    expect(await actionsOf(id)).toEqual([
      {
        action: 'user.updated',
        revisions: [1, 2],
        changes: {
          user_name: { old: 'Before', new: 'After' },
          display_name: { old: null, new: 'Aft' },
          active: { old: true, new: false },
          department_ids: { old: [a], new: [a, b] },
          primary_department_id: { old: a, new: b },
        },
      },
      expect.objectContaining({ action: 'user.created' }),
    ]);
    const cleared = await client.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } }, body: { email: null, department_ids: [] } });
    expect(cleared.data).toMatchObject({ email: null, department_ids: [], primary_department_id: null, revision: 3 });
    const changedTag = await readOver(id).set('If-None-Match', '"2"').expect(200);
    expect(changedTag.headers.etag).toBe('"3"');
  });

  it('refuses every bad PATCH (stale revision 409, If-Match 412, If-None-Match: * 412, bad values 400, conflicts 409/422) and changes nothing', async () => {
    const a = await department();
    const id = await createdId('Guarded', { department_ids: [a] });
    await createdId('Taken', { external_id: 'emp-other' });
    const before = await actionsOf(id);
    const patch = (body: object, header: Record<string, string> = {}) =>
      client.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id }, header }, body });
    const cases: [Awaited<ReturnType<typeof patch>>, number, string, string | undefined, string | undefined][] = [
      [await patch({ expected_revision: 2, active: false }), 409, 'REVISION_CONFLICT', 'expected_revision', 'revision_mismatch'],
      [await patch({ active: false }, { 'If-Match': '"2"' }), 412, 'PRECONDITION_FAILED', 'If-Match', 'revision_mismatch'],
      [await patch({ active: false }, { 'If-None-Match': '*' }), 412, 'PRECONDITION_FAILED', undefined, undefined],
      [await patch({ active: false }, { 'If-Match': 'W/"1"' }), 400, 'VALIDATION_FAILED', 'If-Match', 'invalid_format'],
      [await patch({ expected_revision: 1, active: false }, { 'If-Match': '"2"' }), 400, 'VALIDATION_FAILED', 'expected_revision', 'conflicting_fields'],
      [await patch({ user_name: 'TAKEN' }), 409, 'USER_NAME_CONFLICT', undefined, undefined],
      [await patch({ external_id: 'emp-other' }), 409, 'EXTERNAL_ID_CONFLICT', undefined, undefined],
      [await patch({ department_ids: [a, randomUUID()] }), 422, 'DEPARTMENT_NOT_FOUND', 'department_ids', 'not_found'],
      [await patch({ primary_department_id: randomUUID() }), 422, 'PRIMARY_DEPARTMENT_NOT_MEMBER', 'primary_department_id', 'invalid_value'],
      [await patch({ primary_department_id: null }), 422, 'PRIMARY_DEPARTMENT_NOT_MEMBER', 'primary_department_id', 'invalid_value'],
      [await patch({ department_ids: [a], primary_department_id: randomUUID() }), 400, 'VALIDATION_FAILED', 'primary_department_id', 'conflicting_fields'],
    ];
    for (const [answer, status, code, field, reason] of cases) {
      expect({ status: answer.response.status, code: answer.error?.code, field: answer.error?.details?.field, reason: answer.error?.details?.reason }).toEqual({ status, code, field, reason });
    }
    const badValues: [unknown, string, string | undefined][] = [
      [{ expected_revision: 0 }, 'expected_revision', 'invalid_value'],
      [{ expected_revision: '1' }, 'expected_revision', 'invalid_type'],
      [{ user_name: null }, 'user_name', 'invalid_type'],
      [{ user_name: ' ' }, 'user_name', 'must_not_be_blank'],
      [{ display_name: 'a'.repeat(256) }, 'display_name', 'too_long'],
      [{ email: 'a@b@c' }, 'email', 'invalid_format'],
      [{ external_id: ' x' }, 'external_id', 'invalid_format'],
      [{ active: 1 }, 'active', 'invalid_type'],
      [{ department_ids: [a, a] }, 'department_ids', 'duplicate'],
      [{ primary_department_id: 'x' }, 'primary_department_id', 'invalid_format'],
      [{ user_id: randomUUID() }, 'user_id', 'unknown_field'],
    ];
    for (const [body, field, reason] of badValues) {
      expect({ body, ...refusal(await rawPatch(id, body)) }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED', field, reason: reason ?? expect.any(String) });
    }
    expect(refusal(await rawPatch('nope', {}))).toMatchObject({ status: 400, field: 'user_id' });
    const read = await client.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } });
    expect(read.data).toMatchObject({ user_name: 'Guarded', active: true, department_ids: [a], revision: 1 });
    expect(await actionsOf(id)).toEqual(before);
  });

  it('deletes with DELETE (204, If-Match honoured, memberships removed, one event); then 404 everywhere, and user_name and external_id are free', async () => {
    const a = await department();
    const id = await createdId('Doomed', { external_id: 'emp-doomed', department_ids: [a] });
    const stale = await client.DELETE('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id }, header: { 'If-Match': '"2"' } } });
    expect({ status: stale.response.status, code: stale.error?.code }).toEqual({ status: 412, code: 'PRECONDITION_FAILED' });
    const deleted = await client.DELETE('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id }, header: { 'If-Match': '"1"' } } });
    expect(deleted.response.status).toBe(204);
    for (const again of [
      await client.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } }),
      await client.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } }, body: { active: false } }),
      await client.DELETE('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } }),
    ]) {
      expect({ status: again.response.status, code: again.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    expect((await actionsOf(id)).map((event) => [event.action, event.revisions])).toEqual([
      ['user.deleted', [1, null]],
      ['user.created', [null, 1]],
    ]);
    expect((await client.GET('/api/openapi/v1/users', { params: { query: { department_id: a } } })).data!.items).toEqual([]);
    expect((await create({ user_name: 'doomed', external_id: 'emp-doomed' })).response.status).toBe(201);
  });

  it('lists in keyset pages, filtered by department (direct or its subtree, each user once), user_name and email by case folding, external_id and active', async () => {
    const tenant = await createTenant(context.database);
    const own = clientFor(tenant.bearer);
    const top = await department('Top', null, own);
    const child = await department('Child', top, own);
    const grandchild = await department('Grandchild', child, own);
    const elsewhere = await department('Elsewhere', null, own);
    const make = async (body: NewUser) => (await create(body, randomUUID(), own)).data!;
    const u1 = await make({ user_name: 'One', email: 'One@Example.com', department_ids: [top, child] });
    const u2 = await make({ user_name: 'Two', email: 'one@example.COM', external_id: 'emp-2', department_ids: [grandchild] });
    const u3 = await make({ user_name: 'Three', active: false, department_ids: [elsewhere] });
    const u4 = await make({ user_name: 'Four' });
    type Query = NonNullable<paths['/api/openapi/v1/users']['get']['parameters']['query']>;
    const all = async (query: Query) => {
      const names: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = await own.GET('/api/openapi/v1/users', { params: { query: { ...query, page_size: 1, page_token: pageToken } } });
        expect(page.response.status).toBe(200);
        names.push(...page.data!.items.map((item) => item.user_name));
        pageToken = page.data!.next_page_token ?? undefined;
      } while (pageToken !== undefined);
      return names;
    };
    const byId = (...users: (typeof u1)[]) => [...users].sort((x, y) => (x.user_id < y.user_id ? -1 : 1)).map((user) => user.user_name);
    expect(await all({})).toEqual(['One', 'Two', 'Three', 'Four']);
    expect(await all({ department_id: top })).toEqual(['One']);
    expect(await all({ department_id: top.toUpperCase(), recursive: true })).toEqual(byId(u1, u2));
    expect(await all({ department_id: child, recursive: true })).toEqual(byId(u1, u2));
    expect(await all({ department_id: child, recursive: false })).toEqual(['One']);
    expect(await all({ user_name: 'TWO' })).toEqual(['Two']);
    expect(await all({ email: 'ONE@example.com' })).toEqual(['One', 'Two']);
    expect(await all({ external_id: 'emp-2' })).toEqual(['Two']);
    expect(await all({ external_id: 'EMP-2' })).toEqual([]);
    expect(await all({ active: false })).toEqual(['Three']);
    expect(await all({ active: true, department_id: top, recursive: true, email: 'one@example.com' })).toEqual(byId(u1, u2));
    expect(u4.department_ids).toEqual([]);

    const first = await own.GET('/api/openapi/v1/users', { params: { query: { page_size: 1 } } });
    const otherFilter = await own.GET('/api/openapi/v1/users', { params: { query: { active: true, page_token: first.data!.next_page_token! } } });
    const foreign = await client.GET('/api/openapi/v1/users', { params: { query: { page_token: first.data!.next_page_token! } } });
    for (const refused of [otherFilter, foreign]) expect({ status: refused.response.status, field: refused.error?.details?.field }).toEqual({ status: 400, field: 'page_token' });
  });

  it('names every bad query parameter and path parameter', async () => {
    const cases: [string, string, string][] = [
      ['department_id=nope', 'department_id', 'invalid_format'],
      ['recursive=yes', 'recursive', 'invalid_value'],
      ['recursive=true', 'department_id', 'required'],
      [`user_name=${'a'.repeat(256)}`, 'user_name', 'too_long'],
      [`email=${'a'.repeat(255)}`, 'email', 'too_long'],
      [`external_id=${'a'.repeat(513)}`, 'external_id', 'too_long'],
      ['active=maybe', 'active', 'invalid_value'],
      ['active=true&active=false', 'active', 'invalid_value'],
      ['page_size=0', 'page_size', 'invalid_value'],
      ['page_token=garbage', 'page_token', 'invalid_value'],
      ['colour=red', 'colour', 'unknown_field'],
    ];
    for (const [query, field, reason] of cases) {
      const answer = refusal(await context.http().get(`${PATH}?${query}`).set('Authorization', context.tenant.bearer));
      expect({ query, ...answer }).toEqual({ query, status: 400, code: 'VALIDATION_FAILED', field, reason });
    }
    for (const method of ['get', 'delete'] as const) {
      expect(refusal(await context.http()[method](`${PATH}/nope`).set('Authorization', context.tenant.bearer))).toMatchObject({ status: 400, field: 'user_id' });
    }
  });

  it('needs admin.v1.user-directory.manage to change and admin.v1.user-directory.read to read, as the document says', async () => {
    expect(scopeCatalog().map((scope) => scope.name)).toEqual(expect.arrayContaining([DirectoryScope.Read, DirectoryScope.Manage]));
    const readOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [DirectoryScope.Read])).bearer);
    const manageOnly = clientFor((await createApiKey(context.database, context.tenant.organizationId, [DirectoryScope.Manage])).bearer);
    const id = await createdId('Kept');
    const refused = [
      await create({ user_name: 'Nope' }, randomUUID(), readOnly),
      await readOnly.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } }, body: { active: false } }),
      await readOnly.DELETE('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } }),
      await manageOnly.GET('/api/openapi/v1/users', { params: { query: {} } }),
      await manageOnly.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } }),
    ];
    expect(refused.map((answer) => [answer.response.status, answer.error?.code])).toEqual(Array(5).fill([403, 'INSUFFICIENT_SCOPE']));

    const document = (await context.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> };
    const scopes = [document.paths[PATH].post, document.paths[PATH].get, document.paths[`${PATH}/{user_id}`].get, document.paths[`${PATH}/{user_id}`].patch, document.paths[`${PATH}/{user_id}`].delete];
    expect(scopes.map((operation) => operation['x-required-scope'])).toEqual([DirectoryScope.Manage, DirectoryScope.Read, DirectoryScope.Read, DirectoryScope.Manage, DirectoryScope.Manage]);
  });

  describe('on two instances', () => {
    const instances = useTwoInstances({ database: shared });
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(instances.database);
    });

    const post = (via: 'app' | 'otherApp', body: object, key: string = randomUUID()) =>
      instances[via].http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send(body);

    it('creates one user for many identical POSTs with one key, sent at once to both', async () => {
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => post(index % 2 === 0 ? 'app' : 'otherApp', { user_name: 'Once' }, key)));
      const created = answers.filter((answer) => answer.status === 201);
      expect(new Set(created.map((answer) => answer.body.user_id)).size).toBe(1);
      // The others are replays or, while the first is in flight, 409 IDEMPOTENCY_REQUEST_IN_PROGRESS.
      expect(answers.filter((answer) => answer.status !== 201).map((answer) => answer.body.code)).toEqual(
        answers.filter((answer) => answer.status !== 201).map(() => 'IDEMPOTENCY_REQUEST_IN_PROGRESS'),
      );
      const [{ count }] = await new TransactionHost(instances.database.sql).sql.query<{ count: bigint }>(
        Prisma.sql`SELECT count(*) AS count FROM users WHERE organization_id = ${tenant.organizationId}::uuid`,
      );
      expect(count).toBe(1n);
    });

    it('ends a user create and its department\'s deletion sent at once one way or the other, never with a membership of a deleted department', async () => {
      const txHost = new TransactionHost(instances.database.sql);
      const outcomes: string[] = [];
      for (let round = 0; round < 6; round += 1) {
        const created = await instances.app
          .http()
          .post('/api/openapi/v1/departments')
          .set('Authorization', tenant.bearer)
          .set('Idempotency-Key', randomUUID())
          .send({ name: `Racing ${round}` })
          .expect(201);
        const departmentId = created.body.department_id as string;
        // The department's deletion as a department DELETE runs it: refused (by the membership's foreign key) once it has a member.
        const deletion = txHost.sql.execute(Prisma.sql`DELETE FROM departments WHERE id = ${departmentId}::uuid`).then(
          () => 'deleted',
          () => 'kept',
        );
        const [user, deleted] = await Promise.all([post(round % 2 === 0 ? 'app' : 'otherApp', { user_name: `racer-${round}`, department_ids: [departmentId] }), deletion]);
        outcomes.push(`${deleted}:${user.status}`);
        expect([`deleted:422:DEPARTMENT_NOT_FOUND`, 'kept:201:']).toContain(`${deleted}:${user.status}:${user.body.code ?? ''}`);
      }
      const orphans = await txHost.sql.query(Prisma.sql`
        SELECT m.user_id FROM department_members AS m LEFT JOIN departments AS d ON d.organization_id = m.organization_id AND d.id = m.department_id
        WHERE m.organization_id = ${tenant.organizationId}::uuid AND d.id IS NULL`);
      expect({ orphans, outcomes: outcomes.length }).toEqual({ orphans: [], outcomes: 6 });
    });

    // Needs a second connection to hold the deletion open while the create waits: PostgreSQL only.
    (testDatabaseUrl() === undefined ? it.skip : it)('answers 422 DEPARTMENT_NOT_FOUND to a create whose membership waited for the department\'s deletion to commit', async () => {
      const txHost = new TransactionHost(instances.database.sql);
      const departmentId = (
        await instances.otherApp.http().post('/api/openapi/v1/departments').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: 'Held' }).expect(201)
      ).body.department_id as string;
      let pending: ReturnType<typeof post> | undefined;
      await txHost.withSqlTransaction(async () => {
        await txHost.sql.execute(Prisma.sql`DELETE FROM departments WHERE id = ${departmentId}::uuid`);
        // The create reads the department (the deletion is not committed) and then waits on its row for the membership's key check.
        pending = post('app', { user_name: 'late', department_ids: [departmentId] });
        pending.then(() => undefined, () => undefined);
        await until(async () => {
          const waiting = await instances.database.prisma.$queryRaw<{ count: bigint }[]>`
            SELECT count(*) AS count FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%department_members%'`;
          return waiting[0].count > 0n;
        });
      });
      const answer = await pending!;
      expect(refusal(answer)).toEqual({ status: 422, code: 'DEPARTMENT_NOT_FOUND', field: 'department_ids', reason: 'not_found' });
    });
  });
});
