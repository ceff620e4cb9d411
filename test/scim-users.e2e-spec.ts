import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { ScimScope } from '../src/modules/scim/scim.scopes';
import type { paths } from './client/schema';
import { createApiKey, useTestApp, type TestTenant } from './support/test-app';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_JSON = /^application\/scim\+json; charset=utf-8$/;

type Resource = Record<string, any>;

/**
 * SCIM 2.0 Users (CONTRACT.md section 12) over HTTP: the requests Microsoft Entra ID and Okta send,
 * as their provisioning documentation shows them, through the typed client (each SCIM operation
 * named by its literal path), and the directory seen through the REST API beside it.
 */
describe('SCIM Users', () => {
  // Webhook endpoints on the loopback address, to see SCIM's changes queued for delivery.
  const context = useTestApp({ listen: true, overrides: { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' } });
  /** A key holding only the SCIM scope, as an administrator issues one for an identity provider. */
  let scimKey: TestTenant;
  let scim: Client<paths>;
  let rest: Client<paths>;

  beforeAll(async () => {
    scimKey = await createApiKey(context.database, context.tenant.organizationId, [ScimScope.Provision]);
    scim = clientFor(scimKey.bearer);
    rest = clientFor(context.tenant.bearer);
  });

  const clientFor = (bearer: string) => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: bearer } });
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const raw = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string) => context.http()[method](path).set('Authorization', scimKey.bearer);
  const patchOp = (...operations: object[]) => ({ schemas: [PATCH_OP], Operations: operations });
  const create = async (body: Resource) => {
    const { data, response } = await scim.POST('/scim/v2/Users', { body });
    expect(response.status).toBe(201);
    return data as Resource;
  };
  const get = async (id: string) => (await scim.GET('/scim/v2/Users/{id}', { params: { path: { id } } })).data as Resource;
  const patch = async (id: string, body: object, ifMatch?: string) => {
    const { data, response, error } = await scim.PATCH('/scim/v2/Users/{id}', { params: { path: { id }, header: ifMatch ? { 'If-Match': ifMatch } : {} }, body: body as Resource });
    return { status: response.status, user: data as Resource, error: error as Resource | undefined, etag: response.headers.get('ETag') };
  };
  const list = async (query: { filter?: string; startIndex?: number; count?: number; attributes?: string; excludedAttributes?: string }) => {
    const { data, response } = await scim.GET('/scim/v2/Users', { params: { query } });
    expect({ status: response.status, contentType: response.headers.get('Content-Type') }).toEqual({ status: 200, contentType: expect.stringMatching(SCIM_JSON) });
    return data as Resource;
  };
  const restUser = async (id: string) => (await rest.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } } })).data!;
  const scimError = (response: { status: number; body: Resource; headers: Record<string, string> }) => {
    expect(response.headers['content-type']).toMatch(SCIM_JSON);
    expect(response.body.schemas).toEqual([ERROR]);
    expect(response.body.status).toBe(String(response.status));
    expect(typeof response.body.detail).toBe('string');
    return { status: response.status, scimType: response.body.scimType as string | undefined };
  };

  describe('Microsoft Entra ID', () => {
    it('creates, finds by userName, updates with Replace and Add on emails[type eq "work"].value, disables with "False", and deletes', async () => {
      const userName = `${unique('Test_User')}@testuser.com`;
      // The lookup before a create: nothing yet, a 200 with an empty list.
      expect(await list({ filter: `userName eq "${userName}"` })).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

      const externalId = randomUUID();
      const created = await scim.POST('/scim/v2/Users', {
        body: {
          schemas: [USER, ENTERPRISE],
          externalId,
          userName,
          active: true,
          emails: [{ primary: true, type: 'work', value: `${userName.split('@')[0]}@testuser.com` }],
          meta: { resourceType: 'User' },
          name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
          roles: [],
          [ENTERPRISE]: { department: 'Research', employeeNumber: '1001', manager: { value: 'boss-1' } },
          'urn:ietf:params:scim:schemas:extension:custom:2.0:User': { worksiteId: '180' },
        },
      });
      const user = created.data as Resource;
      expect({ status: created.response.status, contentType: created.response.headers.get('Content-Type') }).toEqual({ status: 201, contentType: expect.stringMatching(SCIM_JSON) });
      expect(user).toEqual({
        schemas: [USER, ENTERPRISE],
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        externalId,
        userName,
        name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
        roles: [],
        emails: [{ value: `${userName.split('@')[0]}@testuser.com`, primary: true, type: 'work' }],
        active: true,
        [ENTERPRISE]: { department: 'Research', employeeNumber: '1001', manager: { value: 'boss-1' } },
        meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: `${context.baseUrl}/scim/v2/Users/${user.id}`, version: 'W/"1"' },
      });
      expect(created.response.headers.get('Location')).toBe(user.meta.location);
      expect(created.response.headers.get('ETag')).toBe('W/"1"');

      const found = await list({ filter: `userName eq "${userName.toUpperCase()}"` });
      expect(found).toEqual({ schemas: [LIST], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [user] });

      const updated = await patch(
        user.id,
        patchOp({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' }, { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' }),
      );
      expect({ status: updated.status, etag: updated.etag, emails: updated.user.emails, name: updated.user.name, version: updated.user.meta.version }).toEqual({
        status: 200,
        etag: 'W/"2"',
        emails: [{ value: 'updatedEmail@microsoft.com', primary: true, type: 'work' }],
        name: { formatted: 'givenName familyName', familyName: 'updatedFamilyName', givenName: 'givenName' },
        version: 'W/"2"',
      });
      const renamed = await patch(user.id, patchOp({ op: 'Replace', path: 'userName', value: `renamed-${userName}` }, { op: 'Add', path: 'emails[type eq "work"].value', value: 'added@microsoft.com' }));
      expect({ userName: renamed.user.userName, emails: renamed.user.emails }).toEqual({ userName: `renamed-${userName}`, emails: [{ value: 'added@microsoft.com', primary: true, type: 'work' }] });

      const disabled = await patch(user.id, patchOp({ op: 'Replace', path: 'active', value: 'False' }));
      expect({ status: disabled.status, active: disabled.user.active }).toEqual({ status: 200, active: false });
      expect(await restUser(user.id)).toMatchObject({ user_name: `renamed-${userName}`, email: 'added@microsoft.com', family_name: 'updatedFamilyName', active: false, revision: 4 });

      const deleted = await scim.DELETE('/scim/v2/Users/{id}', { params: { path: { id: user.id } } });
      expect(deleted.response.status).toBe(204);
      for (const request of [raw('get', `/scim/v2/Users/${user.id}`), raw('put', `/scim/v2/Users/${user.id}`).send({ userName }), raw('patch', `/scim/v2/Users/${user.id}`).send(patchOp({ op: 'replace', path: 'active', value: true })), raw('delete', `/scim/v2/Users/${user.id}`)]) {
        expect(scimError(await request)).toEqual({ status: 404, scimType: undefined });
      }
      expect((await rest.GET('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: user.id } } })).response.status).toBe(404);
    });

    it('adds a work email that was not there and an enterprise attribute by its URN path, in any letter case of the attribute names', async () => {
      const user = await create({ schemas: [USER], userName: unique('entra.add'), active: true });
      const { user: changed } = await patch(
        user.id,
        patchOp(
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'new@example.com' },
          { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Sales' },
          { op: 'Replace', path: 'DisplayName', value: 'Ann Lee' },
          { op: 'Add', path: 'NAME.givenname', value: 'Ann' },
        ),
      );
      expect({ emails: changed.emails, enterprise: changed[ENTERPRISE], schemas: changed.schemas, displayName: changed.displayName, name: changed.name }).toEqual({
        emails: [{ value: 'new@example.com', type: 'work' }],
        enterprise: { department: 'Sales' },
        schemas: [USER, ENTERPRISE],
        displayName: 'Ann Lee',
        name: { givenName: 'Ann' },
      });
      expect(await restUser(user.id)).toMatchObject({ email: 'new@example.com', display_name: 'Ann Lee', given_name: 'Ann' });
    });
  });

  describe('Okta', () => {
    it('passes the connection test: GET /Users?startIndex=1&count=2', async () => {
      await create({ schemas: [USER], userName: unique('okta.a') });
      await create({ schemas: [USER], userName: unique('okta.b') });
      await create({ schemas: [USER], userName: unique('okta.c') });
      const page = await list({ startIndex: 1, count: 2 });
      expect({ schemas: page.schemas, startIndex: page.startIndex, itemsPerPage: page.itemsPerPage, resources: page.Resources.length, total: page.totalResults >= 3 }).toEqual({
        schemas: [LIST],
        startIndex: 1,
        itemsPerPage: 2,
        resources: 2,
        total: true,
      });
    });

    it('looks up, creates (password ignored), reads, replaces with PUT, deactivates and reactivates with a path-less replace', async () => {
      const userName = `${unique('test.user')}@okta.local`;
      expect((await list({ filter: `userName eq "${userName}"`, startIndex: 1, count: 100 })).totalResults).toBe(0);
      const user = await create({
        schemas: [USER],
        userName,
        name: { givenName: 'Test', familyName: 'User' },
        emails: [{ primary: true, value: userName, type: 'work' }],
        displayName: 'Test User',
        locale: 'en-US',
        externalId: '00ujl29u0le5T6Aj10h7',
        groups: [],
        password: '1mz050nq',
        active: true,
      });
      expect(user).not.toHaveProperty('password');
      expect(user).toMatchObject({ userName, locale: 'en-US', displayName: 'Test User', externalId: '00ujl29u0le5T6Aj10h7', active: true });
      expect(await get(user.id)).toEqual(user);

      const replaced = await scim.PUT('/scim/v2/Users/{id}', {
        params: { path: { id: user.id } },
        body: {
          schemas: [USER],
          id: user.id,
          userName,
          name: { givenName: 'Another', familyName: 'User' },
          emails: [{ primary: true, value: userName, type: 'work' }, { value: 'home@example.com', type: 'home' }],
          displayName: 'Another User',
          locale: 'en-GB',
          externalId: '00ujl29u0le5T6Aj10h7',
          groups: [],
          password: 'ignored',
          active: true,
        },
      });
      expect({ status: replaced.response.status, user: replaced.data }).toEqual({
        status: 200,
        user: {
          ...user,
          name: { givenName: 'Another', familyName: 'User' },
          emails: [{ value: userName, primary: true, type: 'work' }, { value: 'home@example.com', type: 'home' }],
          displayName: 'Another User',
          locale: 'en-GB',
          meta: { ...user.meta, lastModified: expect.any(String), version: 'W/"2"' },
        },
      });

      const deactivated = await patch(user.id, patchOp({ op: 'replace', value: { active: false } }));
      expect({ status: deactivated.status, active: deactivated.user.active }).toEqual({ status: 200, active: false });
      expect((await restUser(user.id)).active).toBe(false);
      expect((await patch(user.id, patchOp({ op: 'replace', value: { active: true } }))).user.active).toBe(true);
    });
  });

  describe('the directory behind it', () => {
    it('writes the REST API\'s audit events with the SCIM key as actor, queued for webhooks, and none for a change that changes nothing', async () => {
      const endpoint = (await rest.POST('/api/openapi/v1/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['user.created', 'user.updated', 'user.deleted'] } })).data!;
      const user = await create({ schemas: [USER], userName: unique('audited'), title: 'Engineer' });
      await patch(user.id, patchOp({ op: 'replace', path: 'title', value: 'Manager' }, { op: 'replace', path: 'active', value: false }));
      await patch(user.id, patchOp({ op: 'replace', path: 'title', value: 'Manager' }));
      await scim.DELETE('/scim/v2/Users/{id}', { params: { path: { id: user.id } } });
      // Newest first.
      const events = (await rest.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: 'user', resource_id: user.id } } })).data!.items.reverse();
      expect(events.map((event) => ({ action: event.action, actor: event.actor, revisions: [event.revision_before, event.revision_after] }))).toEqual([
        { action: 'user.created', actor: { type: 'api_key', api_key_id: scimKey.apiKeyId }, revisions: [null, 1] },
        { action: 'user.updated', actor: { type: 'api_key', api_key_id: scimKey.apiKeyId }, revisions: [1, 2] },
        { action: 'user.deleted', actor: { type: 'api_key', api_key_id: scimKey.apiKeyId }, revisions: [2, null] },
      ]);
      expect(events[0].changes).toMatchObject({ user_name: { old: null, new: user.userName }, scim_attributes: { old: null, new: { title: 'Engineer' } } });
      expect(events[1].changes).toEqual({ active: { old: true, new: false }, scim_attributes: { old: { title: 'Engineer' }, new: { title: 'Manager' } } });
      const deliveries = (await rest.GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpoint.id } } })).data!.items;
      expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual(events.map((event) => event.event_id).sort());
      await rest.DELETE('/api/openapi/v1/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id } } });
    });

    it('applies parallel PATCHes of columns alone each once, audited with the one field each changed, and nothing for the same value again', async () => {
      const user = await create({ schemas: [USER], userName: unique('parallel'), title: 'Engineer' });
      const names = Array.from({ length: 12 }, (_, index) => `Name ${index}`);
      const answers = await Promise.all(names.map((name) => patch(user.id, patchOp({ op: 'Replace', path: 'displayName', value: name }))));
      expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 200));
      // Each answer is the user as its own write left it: its name, at a revision of its own.
      expect(answers.map((answer) => answer.user.displayName)).toEqual(names);
      expect(new Set(answers.map((answer) => answer.etag)).size).toBe(names.length);
      const stored = await get(user.id);
      expect(stored.meta.version).toBe(`W/"${1 + names.length}"`);
      expect(stored.title).toBe('Engineer');

      const again = await patch(user.id, patchOp({ op: 'replace', path: 'displayName', value: stored.displayName }));
      expect({ status: again.status, etag: again.etag }).toEqual({ status: 200, etag: stored.meta.version });
      const events = (await rest.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: 'user', resource_id: user.id, page_size: 50 } } })).data!.items;
      const updates = events.filter((event) => event.action === 'user.updated');
      expect(updates.map((event) => Object.keys(event.changes ?? {}))).toEqual(names.map(() => ['display_name']));
      expect(updates.map((event) => event.actor)).toEqual(names.map(() => ({ type: 'api_key', api_key_id: scimKey.apiKeyId })));
      expect(updates.map((event) => (event.changes as Record<string, { new: unknown }>).display_name.new).sort()).toEqual([...names].sort());
    });

    it('reads a user made through the REST API, and the REST API reads SCIM\'s changes at once', async () => {
      const made = await rest.POST('/api/openapi/v1/users', {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: { user_name: unique('rest.made'), email: 'ann@example.com', given_name: 'Ann', external_id: unique('emp') },
      });
      const id = made.data!.user_id;
      const user = await get(id);
      expect(user).toEqual({
        schemas: [USER],
        id,
        externalId: made.data!.external_id,
        userName: made.data!.user_name,
        name: { givenName: 'Ann' },
        emails: [{ value: 'ann@example.com', type: 'work', primary: true }],
        active: true,
        meta: { resourceType: 'User', created: made.data!.created_at, lastModified: made.data!.updated_at, location: `${context.baseUrl}/scim/v2/Users/${id}`, version: 'W/"1"' },
      });
      expect((await list({ filter: `emails.value eq "ANN@example.com" and externalId eq "${made.data!.external_id}"` })).Resources).toEqual([user]);
      await patch(id, patchOp({ op: 'add', path: 'phoneNumbers', value: [{ value: '+1 555 0100', type: 'work' }] }, { op: 'replace', path: 'emails[type eq "work"].value', value: 'ann.lee@example.com' }));
      expect(await restUser(id)).toMatchObject({ email: 'ann.lee@example.com', revision: 2 });
      // The REST API's change of the email reads back in the entry it came from.
      await rest.PATCH('/api/openapi/v1/users/{user_id}', { params: { path: { user_id: id } }, body: { email: 'ann@corp.example.com', family_name: 'Lee' } });
      expect(await get(id)).toMatchObject({
        name: { givenName: 'Ann', familyName: 'Lee' },
        phoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
        emails: [{ value: 'ann@corp.example.com', type: 'work', primary: true }],
        meta: { version: 'W/"3"' },
      });
      // Its departments are its groups.
      const department = (await rest.POST('/api/openapi/v1/departments', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { name: unique('Dept') } })).data!.department_id;
      await rest.PUT('/api/openapi/v1/departments/{department_id}/members/{user_id}', { params: { path: { department_id: department, user_id: id } } });
      expect((await get(id)).groups).toEqual([{ value: department, type: 'direct' }]);
    });

    it('keeps every attribute of the advertised schemas as written and ignores the rest', async () => {
      const body = {
        schemas: [USER, ENTERPRISE, 'urn:example:unknown'],
        userName: unique('kept'),
        nickName: 'Annie',
        title: 'Dr',
        addresses: [{ streetAddress: '1 Main St', locality: 'Springfield', type: 'work', primary: 'True' }],
        x509Certificates: [{ value: 'MIIB' }],
        favouriteColour: 'blue',
        'urn:example:unknown': { shoeSize: 42 },
        [ENTERPRISE]: { costCenter: 'CC-1', manager: { value: 'm-1', displayName: 'readOnly, dropped' } },
      };
      const user = await create(body);
      expect(user).toEqual({
        schemas: [USER, ENTERPRISE],
        id: user.id,
        userName: body.userName,
        nickName: 'Annie',
        title: 'Dr',
        addresses: [{ streetAddress: '1 Main St', locality: 'Springfield', type: 'work', primary: true }],
        x509Certificates: [{ value: 'MIIB' }],
        active: true,
        [ENTERPRISE]: { costCenter: 'CC-1', manager: { value: 'm-1' } },
        meta: expect.any(Object),
      });
    });
  });

  describe('lists and filters', () => {
    it('pages with exact totals, count=0 for the total alone, and filters on the attributes providers use', async () => {
      const tag = unique('page');
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push((await create({ schemas: [USER], userName: `${tag}-${n}`, externalId: `${tag}-ext-${n}`, active: n !== 2 })).id);
      expect(await list({ filter: `userName sw "${tag}"`, count: 0 })).toEqual({ schemas: [LIST], totalResults: 3, startIndex: 1, itemsPerPage: 0, Resources: [] });
      const second = await list({ filter: `userName sw "${tag}"`, startIndex: 2, count: 1 });
      expect({ total: second.totalResults, startIndex: second.startIndex, ids: second.Resources.map((user: Resource) => user.id) }).toEqual({ total: 3, startIndex: 2, ids: [ids[1]] });
      const idsOf = async (filter: string) => (await list({ filter })).Resources.map((user: Resource) => user.id);
      expect(await idsOf(`externalId eq "${tag}-ext-3"`)).toEqual([ids[2]]);
      expect(await idsOf(`externalId eq "${tag.toUpperCase()}-EXT-3"`)).toEqual([]);
      expect(await idsOf(`id eq "${ids[0].toUpperCase()}"`)).toEqual([ids[0]]);
      expect(await idsOf(`userName sw "${tag}" and active eq false`)).toEqual([ids[1]]);
      expect(await idsOf(`userName sw "${tag}" and not (active eq false)`)).toEqual([ids[0], ids[2]]);
      expect(await idsOf(`(userName eq "${tag}-1" or userName eq "${tag}-3") and meta.created ge "2000-01-01T00:00:00Z"`)).toEqual([ids[0], ids[2]]);
      expect(await idsOf('id eq "not-a-uuid"')).toEqual([]);
    });

    it('answers the attributes asked for (with id and schemas), or all but the excluded ones', async () => {
      const user = await create({ schemas: [USER, ENTERPRISE], userName: unique('projected'), title: 'Dr', emails: [{ value: 'p@example.com', type: 'work' }], [ENTERPRISE]: { costCenter: 'CC-9' } });
      const one = await scim.GET('/scim/v2/Users/{id}', { params: { path: { id: user.id }, query: { attributes: 'USERNAME,emails.value' } } });
      expect(one.data).toEqual({ schemas: [USER, ENTERPRISE], id: user.id, userName: user.userName, emails: [{ value: 'p@example.com' }] });
      const listed = await list({ filter: `userName eq "${user.userName}"`, excludedAttributes: `meta,title,${ENTERPRISE}` });
      expect(listed.Resources).toEqual([{ schemas: [USER, ENTERPRISE], id: user.id, userName: user.userName, emails: [{ value: 'p@example.com', type: 'work' }], active: true }]);
      const patched = await scim.PATCH('/scim/v2/Users/{id}', {
        params: { path: { id: user.id }, query: { attributes: 'title' } },
        body: patchOp({ op: 'replace', path: 'title', value: 'Prof' }),
      });
      expect(patched.data).toEqual({ schemas: [USER, ENTERPRISE], id: user.id, title: 'Prof' });
    });

    it('refuses a filter that does not parse or names what cannot be filtered on: 400 invalidFilter', async () => {
      for (const filter of ['userName eq', 'userName xx "a"', 'title eq "Dr"', 'active eq "yes"', '(userName eq "a"']) {
        expect(scimError(await raw('get', '/scim/v2/Users').query({ filter }))).toEqual({ status: 400, scimType: 'invalidFilter' });
      }
      expect(scimError(await raw('get', '/scim/v2/Users').query({ count: 'many' }))).toEqual({ status: 400, scimType: 'invalidValue' });
    });
  });

  describe('versions and conflicts', () => {
    it('answers the ETag, 304 to If-None-Match, and 412 to an If-Match of another version (nothing changed)', async () => {
      const user = await create({ schemas: [USER], userName: unique('etag') });
      const read = await scim.GET('/scim/v2/Users/{id}', { params: { path: { id: user.id } } });
      expect(read.response.headers.get('ETag')).toBe('W/"1"');
      expect((await raw('get', `/scim/v2/Users/${user.id}`).set('If-None-Match', 'W/"1"')).status).toBe(304);
      expect((await patch(user.id, patchOp({ op: 'replace', path: 'displayName', value: 'x' }), 'W/"1"')).status).toBe(200);
      const stale = await raw('patch', `/scim/v2/Users/${user.id}`).set('If-Match', 'W/"1"').send(patchOp({ op: 'replace', path: 'displayName', value: 'y' }));
      expect(scimError(stale)).toEqual({ status: 412, scimType: undefined });
      expect(scimError(await raw('put', `/scim/v2/Users/${user.id}`).set('If-Match', '"1"').send({ userName: user.userName }))).toEqual({ status: 412, scimType: undefined });
      expect(scimError(await raw('delete', `/scim/v2/Users/${user.id}`).set('If-Match', 'W/"7"'))).toEqual({ status: 412, scimType: undefined });
      expect((await get(user.id)).displayName).toBe('x');
      expect((await raw('delete', `/scim/v2/Users/${user.id}`).set('If-Match', 'W/"2"')).status).toBe(204);
    });

    it('refuses a userName taken in another letter case, or a taken externalId: 409 uniqueness, so a retried create makes nothing twice', async () => {
      const body = { schemas: [USER], userName: unique('Taken'), externalId: unique('ext') };
      const first = await create(body);
      expect(scimError(await raw('post', '/scim/v2/Users').send(body))).toEqual({ status: 409, scimType: 'uniqueness' });
      expect(scimError(await raw('post', '/scim/v2/Users').send({ ...body, userName: body.userName.toUpperCase(), externalId: undefined }))).toEqual({ status: 409, scimType: 'uniqueness' });
      expect(scimError(await raw('post', '/scim/v2/Users').send({ userName: unique('other'), externalId: body.externalId }))).toEqual({ status: 409, scimType: 'uniqueness' });
      const other = await create({ schemas: [USER], userName: unique('other') });
      expect(scimError(await raw('patch', `/scim/v2/Users/${other.id}`).send(patchOp({ op: 'replace', path: 'userName', value: body.userName.toLowerCase() })))).toEqual({ status: 409, scimType: 'uniqueness' });
      expect((await list({ filter: `userName eq "${body.userName}"` })).Resources.map((user: Resource) => user.id)).toEqual([first.id]);
    });
  });

  describe('bad input, never a 500', () => {
    it('answers every malformed request with a 400 and its scimType', async () => {
      const user = await create({ schemas: [USER], userName: unique('bad') });
      const post = (body: unknown) => raw('post', '/scim/v2/Users').set('Content-Type', 'application/scim+json').send(JSON.stringify(body));
      const patchWith = (body: unknown) => raw('patch', `/scim/v2/Users/${user.id}`).send(body as object);
      const cases: Array<[string, Promise<any>, string]> = [
        ['a body that is not JSON', raw('post', '/scim/v2/Users').set('Content-Type', 'application/scim+json').send('{"userName":'), 'invalidSyntax'],
        ['no userName', post({ schemas: [USER], displayName: 'x' }), 'invalidValue'],
        ['a userName that is no string', post({ userName: 42 }), 'invalidValue'],
        ['a blank userName', post({ userName: '  ' }), 'invalidValue'],
        ['a userName too long', post({ userName: 'a'.repeat(256) }), 'invalidValue'],
        ['active that is no boolean', post({ userName: unique('x'), active: 'yes' }), 'invalidValue'],
        ['emails that is no array', post({ userName: unique('x'), emails: 'a@b' }), 'invalidValue'],
        ['a name that is no object', post({ userName: unique('x'), name: 'Ann' }), 'invalidValue'],
        ['an externalId with surrounding white space', post({ userName: unique('x'), externalId: ' e ' }), 'invalidValue'],
        ['a body that is no PatchOp', patchWith({ Operations: [{ op: 'replace', path: 'active', value: false }] }), 'invalidSyntax'],
        ['an unknown op', patchWith(patchOp({ op: 'merge', path: 'active', value: false })), 'invalidSyntax'],
        ['a path that does not parse', patchWith(patchOp({ op: 'replace', path: 'emails[type eq', value: 'x' })), 'invalidPath'],
        ['a value of the wrong type', patchWith(patchOp({ op: 'replace', path: 'active', value: 'maybe' })), 'invalidValue'],
        ['removing the required userName', patchWith(patchOp({ op: 'remove', path: 'userName' })), 'invalidValue'],
        ['changing the readOnly id', patchWith(patchOp({ op: 'replace', path: 'id', value: randomUUID() })), 'mutability'],
        ['a remove without path', patchWith(patchOp({ op: 'remove' })), 'noTarget'],
      ];
      for (const [what, request, scimType] of cases) {
        const response = await request;
        expect({ what, status: response.status, scimType: response.body.scimType }).toEqual({ what, status: 400, scimType });
        scimError(response);
      }
      expect(await get(user.id)).toEqual(user);
    });

    it('answers 401, 403, 404, 415 in SCIM\'s error body, and leaves the REST API its own', async () => {
      const noKey = await context.http().get('/scim/v2/Users');
      expect(scimError(noKey)).toEqual({ status: 401, scimType: undefined });
      expect(noKey.headers['www-authenticate']).toBe('Bearer');
      expect(scimError(await context.http().get('/scim/v2/ServiceProviderConfig').set('Authorization', 'Bearer wsk_nope'))).toEqual({ status: 401, scimType: undefined });
      const directoryOnly = await createApiKey(context.database, context.tenant.organizationId, [DirectoryScope.Read, DirectoryScope.Manage]);
      const forbidden = await context.http().get('/scim/v2/Users').set('Authorization', directoryOnly.bearer);
      expect(scimError(forbidden)).toEqual({ status: 403, scimType: undefined });
      expect(forbidden.body.detail).toContain('admin.v1.scim.provision');
      expect(scimError(await raw('get', '/scim/v2/Groupies'))).toEqual({ status: 404, scimType: undefined });
      expect(scimError(await raw('get', `/scim/v2/Users/${randomUUID()}`))).toEqual({ status: 404, scimType: undefined });
      expect(scimError(await raw('post', '/scim/v2/Users').set('Content-Type', 'text/plain').send('userName=x'))).toEqual({ status: 415, scimType: undefined });
      // The SCIM key is no key of the REST API's operations, which answer in the API's body.
      const restRefusal = await context.http().get('/api/openapi/v1/users').set('Authorization', scimKey.bearer);
      expect({ status: restRefusal.status, code: restRefusal.body.code, contentType: restRefusal.headers['content-type'] }).toEqual({
        status: 403,
        code: 'INSUFFICIENT_SCOPE',
        contentType: 'application/json; charset=utf-8',
      });
    });
  });

  describe('limits of the service', () => {
    const limited = useTestApp({ overrides: { RATE_LIMIT_PER_MINUTE: 3, JSON_BODY_LIMIT_BYTES: 1024 } });

    it('answers 413 and 429 in SCIM\'s error body, 429 with its Retry-After', async () => {
      const key = await createApiKey(limited.database, limited.tenant.organizationId, [ScimScope.Provision]);
      const tooLarge = await limited.http().post('/scim/v2/Users').set('Authorization', key.bearer).send({ userName: 'x', title: 'x'.repeat(2048) });
      expect(scimError(tooLarge)).toEqual({ status: 413, scimType: undefined });
      let answer = tooLarge;
      while (answer.status !== 429) answer = await limited.http().get('/scim/v2/ServiceProviderConfig').set('Authorization', key.bearer);
      expect(scimError(answer)).toEqual({ status: 429, scimType: undefined });
      expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    });
  });

  describe('discovery', () => {
    it('serves the service provider configuration, resource types and schemas to the SCIM key', async () => {
      const config = await scim.GET('/scim/v2/ServiceProviderConfig');
      expect({ status: config.response.status, contentType: config.response.headers.get('Content-Type') }).toEqual({ status: 200, contentType: expect.stringMatching(SCIM_JSON) });
      expect(config.data).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 100 }, etag: { supported: true }, bulk: { supported: false } });
      const types = (await scim.GET('/scim/v2/ResourceTypes')).data as Resource;
      expect(types.Resources.map((type: Resource) => type.id)).toEqual(['User', 'Group']);
      expect((await scim.GET('/scim/v2/ResourceTypes/{resourceTypeId}', { params: { path: { resourceTypeId: 'User' } } })).data).toMatchObject({ endpoint: '/Users', schema: USER });
      const schemas = (await scim.GET('/scim/v2/Schemas')).data as Resource;
      expect(schemas.Resources.map((schema: Resource) => schema.id)).toEqual(expect.arrayContaining([USER, ENTERPRISE]));
      const user = (await scim.GET('/scim/v2/Schemas/{schemaId}', { params: { path: { schemaId: USER } } })).data as Resource;
      expect(user.attributes.map((attribute: Resource) => attribute.name)).toContain('userName');
      expect(scimError(await raw('get', '/scim/v2/Schemas/urn:nope'))).toEqual({ status: 404, scimType: undefined });
    });
  });
});
