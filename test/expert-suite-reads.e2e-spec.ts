import { randomUUID } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service';
import type { Database } from '../src/database/database';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { expectErrorBody } from './support/error-body';
import { forgedTokens, withPosition } from './support/forged-page-tokens';
import { createApiKey, createTenant, useTwoInstances, type TestApp, type TestTenant } from './support/test-app';

const PATH = '/api/openapi/v1/expert-suites';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('reading expert suites and conditional PATCH', () => {
  const instances = useTwoInstances();
  let database: Database;
  let app: TestApp;
  let otherApp: TestApp;
  let admin: AdminService;

  beforeAll(() => {
    ({ database, app, otherApp } = instances);
    admin = new AdminService(database.sql);
  });

  const newSuite = (tenant: TestTenant) => admin.createExpertSuite(tenant.organizationId, `suite-${randomUUID().slice(0, 8)}`);
  const read = (tenant: TestTenant, id: string) => app.http().get(`${PATH}/${id}`).set('Authorization', tenant.bearer);
  const patch = (tenant: TestTenant, id: string, body: object, ifMatch?: string) => {
    const request = app.http().patch(`${PATH}/${id}`).set('Authorization', tenant.bearer);
    if (ifMatch !== undefined) request.set('If-Match', ifMatch);
    return request.send(body);
  };
  const list = (tenant: TestTenant, query: Record<string, string | number>, via: TestApp = app) =>
    via.http().get(PATH).query(query).set('Authorization', tenant.bearer);

  describe('GET /expert-suites/{resourceId}', () => {
    it('answers the body PATCH returns, with ETag "<revision>", and follows each change', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const first = await read(tenant, suite.id).expect(200);
      expect(first.body).toEqual(suite);
      expect(first.headers.etag).toBe('"1"');

      const patched = await patch(tenant, suite.id, { display_name: 'Renamed' }).expect(200);
      expect(patched.headers.etag).toBe('"2"');
      const second = await read(tenant, suite.id.toUpperCase()).expect(200);
      expect(second.body).toEqual(patched.body);
      expect(second.headers.etag).toBe('"2"');
    });

    it('answers 304 with no body when If-None-Match holds the current tag, and 200 when it holds an old one', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const notModified = await read(tenant, suite.id).set('If-None-Match', '"1"').expect(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.etag).toBe('"1"');
      await read(tenant, suite.id).set('If-None-Match', 'W/"1"').expect(304);
      await read(tenant, suite.id).set('If-None-Match', '"7", "1"').expect(304);
      await patch(tenant, suite.id, { display_name: 'Changed' }).expect(200);
      const changed = await read(tenant, suite.id).set('If-None-Match', '"1"').expect(200);
      expect(changed.body.display_name).toBe('Changed');
    });

    it('answers 304 also when the request says Cache-Control: no-cache, as fetch() does with If-None-Match', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const notModified = await read(tenant, suite.id).set('If-None-Match', '"1"').set('Cache-Control', 'no-cache').set('Pragma', 'no-cache').expect(304);
      expect(notModified.text).toBe('');
      await read(tenant, suite.id).set('If-None-Match', '"2"').set('Cache-Control', 'no-cache').expect(200);
    });

    it('answers 404 alike for a missing suite and another organization\'s, and 400 for an id that is not a uuid', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      const theirs = await newSuite(stranger);
      const missing = await read(tenant, MISSING).expect(404);
      const foreign = await read(tenant, theirs.id).expect(404);
      expectErrorBody(foreign, 404, 'NOT_FOUND', 'not_found');
      expect(foreign.body).toEqual(missing.body);
      expect(foreign.headers.etag).toBeUndefined();
      expect((await read(tenant, 'suite-1').expect(400)).body.details).toMatchObject({ field: 'resourceId', reason: 'invalid_format' });
    });

    it('needs admin.v1.expert-suites.read: a manage key cannot read, a read key cannot PATCH', async () => {
      const tenant = await createTenant(database, [ExpertSuitesScope.Manage]);
      const reader = await createApiKey(database, tenant.organizationId, [ExpertSuitesScope.Read]);
      const suite = await newSuite(tenant);
      const refused = await read(tenant, suite.id).expect(403);
      expect(refused.body.detail).toContain(ExpertSuitesScope.Read);
      expectErrorBody(await list(tenant, {}).expect(403), 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      await read(reader, suite.id).expect(200);
      expect((await patch(reader, suite.id, { display_name: 'No' }).expect(403)).body.detail).toContain(ExpertSuitesScope.Manage);
    });
  });

  describe('PATCH with If-Match', () => {
    it('applies with the current tag or *, and answers with the new ETag', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const first = await patch(tenant, suite.id, { display_name: 'One' }, '"1"').expect(200);
      expect(first.body.revision).toBe(2);
      expect(first.headers.etag).toBe('"2"');
      const second = await patch(tenant, suite.id, { display_name: 'Two' }, '*').expect(200);
      expect(second.body.revision).toBe(3);
      const both = await patch(tenant, suite.id, { display_name: 'Three', expected_revision: 3 }, '"3"').expect(200);
      expect(both.body.revision).toBe(4);
    });

    it('answers 412 PRECONDITION_FAILED with the current revision for a stale tag, on both PATCH paths, and changes nothing', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const category = await admin.createCategory(tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      await patch(tenant, suite.id, { display_name: 'Moved on' }).expect(200);
      for (const body of [{ display_name: 'Late' }, { display_name: 'Late', category_id: category.id }]) {
        const stale = await patch(tenant, suite.id, body, '"1"').expect(412);
        expectErrorBody(stale, 412, 'PRECONDITION_FAILED', 'precondition_failed');
        expect(stale.body.details).toEqual({ field: 'If-Match', reason: 'revision_mismatch', suggestion: '2' });
      }
      const stored = (await read(tenant, suite.id).expect(200)).body;
      expect({ display_name: stored.display_name, revision: stored.revision, category_id: stored.category_id }).toEqual({ display_name: 'Moved on', revision: 2, category_id: null });
    });

    it('keeps 409 for a stale expected_revision without If-Match', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const stale = await patch(tenant, suite.id, { display_name: 'x', expected_revision: 5 }).expect(409);
      expectErrorBody(stale, 409, 'REVISION_CONFLICT', 'conflict');
    });

    it.each([['W/"1"'], ['"1", "2"'], ['1'], ['"0"'], ['"abc"'], ['']])('answers 400 invalid_format for If-Match %j', async (ifMatch) => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const response = await patch(tenant, suite.id, { display_name: 'x' }, ifMatch).expect(400);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'If-Match', reason: 'invalid_format' });
    });

    it('answers 400 conflicting_fields when If-Match and expected_revision name different revisions', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const response = await patch(tenant, suite.id, { display_name: 'x', expected_revision: 2 }, '"1"').expect(400);
      expect(response.body.details).toEqual({ field: 'expected_revision', reason: 'conflicting_fields' });
    });

    it('lets exactly one of many concurrent PATCHes with the same tag through; the others get 412', async () => {
      const tenant = await createTenant(database);
      const suite = await newSuite(tenant);
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? app : otherApp).http().patch(`${PATH}/${suite.id}`).set('Authorization', tenant.bearer).set('If-Match', '"1"').send({ display_name: `Writer ${i}` })),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(11);
      expect((await read(tenant, suite.id).expect(200)).body.revision).toBe(2);
    });
  });

  describe('GET /expert-suites (filtered, page by page)', () => {
    it('lists every suite once across pages and instances, by creation, with suites created meanwhile at the end', async () => {
      const tenant = await createTenant(database);
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await newSuite(tenant));
      const seen: Array<{ id: string }> = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { page_size: 2 };
        if (token !== null) query.page_token = token;
        const page = (await list(tenant, query, pages % 2 === 0 ? app : otherApp).expect(200)).body as { items: Array<{ id: string }>; next_page_token: string | null };
        seen.push(...page.items);
        token = page.next_page_token;
        if (pages++ === 0) created.push(await newSuite(tenant));
      } while (token !== null);
      expect(seen.map((suite) => suite.id)).toEqual(created.map((suite) => suite.id));
      expect(pages).toBe(3);
    });

    it('filters by status and by category, and another organization\'s suites never show', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      await newSuite(stranger);
      const category = await admin.createCategory(tenant.organizationId, `cat-${randomUUID().slice(0, 8)}`);
      const draft = await newSuite(tenant);
      const disabled = await newSuite(tenant);
      await patch(tenant, disabled.id, { status: 'disabled', category_id: category.id }).expect(200);

      const ids = async (query: Record<string, string>) => ((await list(tenant, query).expect(200)).body.items as Array<{ id: string }>).map((suite) => suite.id);
      expect(await ids({})).toEqual([draft.id, disabled.id]);
      expect(await ids({ status: 'draft' })).toEqual([draft.id]);
      expect(await ids({ status: 'disabled' })).toEqual([disabled.id]);
      expect(await ids({ status: 'published' })).toEqual([]);
      expect(await ids({ category_id: category.id.toUpperCase() })).toEqual([disabled.id]);
      expect(await ids({ category_id: MISSING })).toEqual([]);
    });

    it('refuses an unknown status, a bad page_size, a token of other filters or another organization, and unknown parameters', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      for (let i = 0; i < 2; i++) {
        await newSuite(tenant);
        await newSuite(stranger);
      }
      const token = (await list(tenant, { page_size: 1 }).expect(200)).body.next_page_token as string;
      const cases: Array<[TestTenant, Record<string, string>, string, string]> = [
        [tenant, { status: 'archived' }, 'status', 'invalid_value'],
        [tenant, { page_size: '0' }, 'page_size', 'invalid_value'],
        [tenant, { status: 'draft', page_token: token }, 'page_token', 'invalid_value'],
        [stranger, { page_token: token }, 'page_token', 'invalid_value'],
        [tenant, { sort: 'name' }, 'sort', 'unknown_field'],
        [tenant, { category_id: 'finance' }, 'category_id', 'invalid_format'],
      ];
      for (const [who, query, field, reason] of cases) {
        const response = await list(who, query).expect(400);
        expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(response.body.details).toMatchObject({ field, reason });
      }
    });
    it('refuses every forged token, and creation times PostgreSQL or a Date cannot hold, with 400 naming page_token, never 500', async () => {
      const tenant = await createTenant(database);
      await newSuite(tenant);
      await newSuite(tenant);
      const token = (await list(tenant, { page_size: 1 }).expect(200)).body.next_page_token as string;
      const cases: Array<[string, string]> = [
        ...forgedTokens(token),
        ['int64 max', withPosition(token, '9223372036854775807')],
        ['int64 min', withPosition(token, '-9223372036854775808')],
        ['-999999999999999 ms, before 4714 BC', withPosition(token, '-999999999999999')],
        ['one millisecond before PostgreSQL\'s first timestamp', withPosition(token, '-210866803200001')],
        ['one millisecond after the last Date', withPosition(token, '8640000000000001')],
      ];
      for (const [name, pageToken] of cases) {
        const response = await list(tenant, { page_token: pageToken });
        expect([name, response.status]).toEqual([name, 400]);
        expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(response.body.details).toMatchObject({ field: 'page_token', reason: 'invalid_value' });
      }
    });

    it('takes a position at either edge of the creation times: after the first every suite, after the last none', async () => {
      const tenant = await createTenant(database);
      await newSuite(tenant);
      await newSuite(tenant);
      const token = (await list(tenant, { page_size: 1 }).expect(200)).body.next_page_token as string;
      const fromStart = await list(tenant, { page_token: withPosition(token, '-210866803200000') }).expect(200);
      expect(fromStart.body.items).toHaveLength(2);
      const pastEnd = await list(tenant, { page_token: withPosition(token, '8640000000000000') }).expect(200);
      expect(pastEnd.body).toEqual({ items: [], next_page_token: null });
    });
  });

  it('documents the reads under their tag with the read scope, ETag and 304, and If-Match and 412 on PATCH', async () => {
    const document = (await app.http().get('/docs-json').expect(200)).body;
    const getOne = document.paths[`${PATH}/{resourceId}`].get;
    const patchOne = document.paths[`${PATH}/{resourceId}`].patch;
    const getMany = document.paths[PATH].get;
    for (const operation of [getOne, getMany]) {
      expect(operation.tags).toEqual(['Expert suites']);
      expect(operation['x-required-scope']).toBe(ExpertSuitesScope.Read);
    }
    expect(getOne.responses['200'].headers.ETag).toBeDefined();
    expect(getOne.responses['304']).toBeDefined();
    expect(patchOne.parameters.map((parameter: { name: string }) => parameter.name)).toContain('If-Match');
    expect(patchOne.responses['412'].content['application/json'].examples.PRECONDITION_FAILED).toBeDefined();
    expect(patchOne.responses['200'].headers.ETag).toBeDefined();
    expect(Object.keys(document.components.schemas.ExpertSuitePageDto.properties).sort()).toEqual(['items', 'next_page_token']);
  });
});
