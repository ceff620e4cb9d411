import type { Database } from '../src/database/database';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';
import { expectErrorBody } from './support/error-body';
import { forgedTokens, withPosition } from './support/forged-page-tokens';
import { createApiKey, createTenant, useTwoInstances, type TestApp, type TestTenant } from './support/test-app';

const PATH = '/api/openapi/v1/departments';
const MISSING = '00000000-0000-4000-8000-000000000000';

let keySequence = 0;
const newKey = () => `read-test-${process.pid}-${Date.now()}-${++keySequence}`;

interface Department {
  department_id: string;
  external_id: string | null;
  name: string;
  order: number;
  parent_id: string | null;
}

describe('reading departments: GET /departments/{id}, GET /departments', () => {
  const instances = useTwoInstances();
  let database: Database;
  let app: TestApp;
  let otherApp: TestApp;

  beforeAll(() => ({ database, app, otherApp } = instances));

  const create = async (tenant: TestTenant, body: { name: string; parent_id?: string; external_id?: string }): Promise<Department> =>
    (await app.http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', newKey()).send(body).expect(201)).body as Department;
  const read = (tenant: TestTenant, id: string, via: TestApp = app) => via.http().get(`${PATH}/${id}`).set('Authorization', tenant.bearer);
  const list = (tenant: TestTenant, query: Record<string, string | number>, via: TestApp = app) =>
    via.http().get(PATH).query(query).set('Authorization', tenant.bearer);

  /** Every item of a listing, following next_page_token to the end (alternating instances). */
  async function listAll(tenant: TestTenant, query: Record<string, string | number>): Promise<{ items: Department[]; pages: number }> {
    const items: Department[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const response = await list(tenant, token === null ? query : { ...query, page_token: token }, pages % 2 === 0 ? app : otherApp).expect(200);
      items.push(...(response.body.items as Department[]));
      token = response.body.next_page_token as string | null;
      pages++;
    } while (token !== null);
    return { items, pages };
  }

  describe('GET /departments/{department_id}', () => {
    it('answers with the same fields create returned, for an id in any case', async () => {
      const tenant = await createTenant(database);
      const parent = await create(tenant, { name: 'Research', external_id: 'hr-1' });
      const child = await create(tenant, { name: 'Lab', parent_id: parent.department_id });
      expect((await read(tenant, parent.department_id).expect(200)).body).toEqual(parent);
      expect((await read(tenant, child.department_id.toUpperCase()).expect(200)).body).toEqual(child);
    });

    it('answers 404 for a missing id and, exactly alike apart from the id, for another organization\'s department', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      const theirs = await create(stranger, { name: 'Theirs' });
      const missing = await read(tenant, MISSING).expect(404);
      const foreign = await read(tenant, theirs.department_id).expect(404);
      expectErrorBody(missing, 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(foreign, 404, 'NOT_FOUND', 'not_found');
      expect(foreign.body.detail.replace(theirs.department_id, MISSING)).toBe(missing.body.detail);
      expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
    });

    it('answers 400 naming department_id when it is not a uuid', async () => {
      const tenant = await createTenant(database);
      const response = await read(tenant, 'not-a-uuid').expect(400);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toMatchObject({ field: 'department_id', reason: 'invalid_format' });
    });
  });

  describe('scopes: read and manage do not include each other', () => {
    it('lets a read key read but not create, and a manage key create but not read', async () => {
      const tenant = await createTenant(database, [DirectoryScope.Manage]);
      const readOnly = await createApiKey(database, tenant.organizationId, [DirectoryScope.Read]);
      const created = await create(tenant, { name: 'Scoped' });

      const manageReads = await read(tenant, created.department_id).expect(403);
      expectErrorBody(manageReads, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      expect(manageReads.body.detail).toContain(DirectoryScope.Read);
      expectErrorBody(await list(tenant, {}).expect(403), 403, 'INSUFFICIENT_SCOPE', 'forbidden');

      expect((await read(readOnly, created.department_id).expect(200)).body).toEqual(created);
      const readCreates = await app.http().post(PATH).set('Authorization', readOnly.bearer).set('Idempotency-Key', newKey()).send({ name: 'No' }).expect(403);
      expect(readCreates.body.detail).toContain(DirectoryScope.Manage);
    });

    it('refuses keys of other scopes with 403 and requests without a key with 401', async () => {
      const tenant = await createTenant(database, [QuotaScope.Read]);
      expectErrorBody(await read(tenant, MISSING).expect(403), 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      expectErrorBody(await app.http().get(PATH).expect(401), 401, 'UNAUTHENTICATED', 'unauthorized');
    });
  });

  describe('GET /departments (children of one parent, page by page)', () => {
    it('lists the top level of an organization with no departments as an empty last page', async () => {
      const tenant = await createTenant(database);
      expect((await list(tenant, {}).expect(200)).body).toEqual({ items: [], next_page_token: null });
    });

    it('lists children by order, one page or several, with tokens that work on every instance', async () => {
      const tenant = await createTenant(database);
      const top = await create(tenant, { name: 'Top' });
      const children: Department[] = [];
      for (let i = 1; i <= 7; i++) children.push(await create(tenant, { name: `Child ${i}`, parent_id: top.department_id }));

      const onePage = await list(tenant, { parent_id: top.department_id }).expect(200);
      expect(onePage.body).toEqual({ items: children, next_page_token: null });

      const paged = await listAll(tenant, { parent_id: top.department_id, page_size: 3 });
      expect(paged).toEqual({ items: children, pages: 3 });
      const exact = await listAll(tenant, { parent_id: top.department_id, page_size: 7 });
      expect(exact).toEqual({ items: children, pages: 1 });

      expect((await list(tenant, {}).expect(200)).body).toEqual({ items: [top], next_page_token: null });
      expect((await list(tenant, { parent_id: children[0].department_id }).expect(200)).body).toEqual({ items: [], next_page_token: null });
    });

    it('loses and repeats nothing when departments are created between pages', async () => {
      const tenant = await createTenant(database);
      const top = await create(tenant, { name: 'Growing' });
      for (let i = 1; i <= 4; i++) await create(tenant, { name: `Early ${i}`, parent_id: top.department_id });
      const seen: Department[] = [];
      let token: string | null = null;
      let added = 0;
      do {
        const query: Record<string, string | number> = { parent_id: top.department_id, page_size: 2 };
        if (token !== null) query.page_token = token;
        const page = (await list(tenant, query).expect(200)).body as { items: Department[]; next_page_token: string | null };
        seen.push(...page.items);
        token = page.next_page_token;
        if (token !== null && added < 3) await create(tenant, { name: `Late ${++added}`, parent_id: top.department_id });
      } while (token !== null);
      const names = seen.map((department) => department.name);
      // Each page but the last was followed by a new sibling; every one created before the last page is in it.
      expect(names).toEqual(['Early 1', 'Early 2', 'Early 3', 'Early 4', 'Late 1', 'Late 2']);
      expect(added).toBe(2);
      expect(new Set(seen.map((department) => department.department_id)).size).toBe(seen.length);
    });

    it('answers 404 for a parent that is missing or another organization\'s, alike', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      const theirs = await create(stranger, { name: 'Theirs' });
      await create(stranger, { name: 'Their child', parent_id: theirs.department_id });
      const missing = await list(tenant, { parent_id: MISSING }).expect(404);
      const foreign = await list(tenant, { parent_id: theirs.department_id }).expect(404);
      expectErrorBody(foreign, 404, 'NOT_FOUND', 'not_found');
      expect(foreign.body.detail.replace(theirs.department_id, MISSING)).toBe(missing.body.detail);
    });

    it.each([
      ['0', 'page_size'],
      ['101', 'page_size'],
      ['1.5', 'page_size'],
      ['1e2', 'page_size'],
      ['abc', 'page_size'],
      ['', 'page_size'],
      ['-1', 'page_size'],
    ])('answers 400 invalid_value for page_size=%j', async (pageSize, field) => {
      const tenant = await createTenant(database);
      const response = await list(tenant, { page_size: pageSize }).expect(400);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toMatchObject({ field, reason: 'invalid_value' });
    });

    it('takes page_size 1 and 100, the edges', async () => {
      const tenant = await createTenant(database);
      await create(tenant, { name: 'One' });
      await create(tenant, { name: 'Two' });
      const first = (await list(tenant, { page_size: 1 }).expect(200)).body;
      expect(first.items).toHaveLength(1);
      expect(typeof first.next_page_token).toBe('string');
      expect((await list(tenant, { page_size: 100 }).expect(200)).body.items).toHaveLength(2);
    });

    it('refuses a token of another parent, of another organization, or made up, with 400 invalid_value naming page_token', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      const top = await create(tenant, { name: 'Top' });
      await create(tenant, { name: 'Also top' });
      await create(tenant, { name: 'A', parent_id: top.department_id });
      await create(tenant, { name: 'B', parent_id: top.department_id });
      await create(stranger, { name: 'S1' });
      await create(stranger, { name: 'S2' });
      const topLevelToken = (await list(tenant, { page_size: 1 }).expect(200)).body.next_page_token as string;
      const strangerToken = (await list(stranger, { page_size: 1 }).expect(200)).body.next_page_token as string;

      const cases: Array<[TestTenant, Record<string, string>]> = [
        [tenant, { parent_id: top.department_id, page_token: topLevelToken }],
        [tenant, { page_token: strangerToken }],
        [stranger, { page_token: topLevelToken }],
        [tenant, { page_token: 'bm90LWEtdG9rZW4' }],
        [tenant, { page_token: "1' OR '1'='1" }],
      ];
      for (const [who, query] of cases) {
        const response = await list(who, query).expect(400);
        expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(response.body.details).toMatchObject({ field: 'page_token', reason: 'invalid_value' });
      }
    });

    it('refuses every forged token with 400 invalid_value naming page_token, never 500', async () => {
      const tenant = await createTenant(database);
      const top = await create(tenant, { name: 'Top' });
      await create(tenant, { name: 'A', parent_id: top.department_id });
      await create(tenant, { name: 'B', parent_id: top.department_id });
      const token = (await list(tenant, { parent_id: top.department_id, page_size: 1 }).expect(200)).body.next_page_token as string;
      const cases: Array<[string, string]> = [
        ...forgedTokens(token),
        ['order 0, below the first order', withPosition(token, '0')],
        ['a negative order', withPosition(token, '-999999999999999')],
        ['int64 min', withPosition(token, '-9223372036854775808')],
        ['int64 max plus one', withPosition(token, '9223372036854775808')],
      ];
      for (const [name, pageToken] of cases) {
        const response = await list(tenant, { parent_id: top.department_id, page_token: pageToken });
        expect([name, response.status]).toEqual([name, 400]);
        expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(response.body.details).toMatchObject({ field: 'page_token', reason: 'invalid_value' });
      }
    });

    it('takes a position at either edge of the orders it assigns: after order 1 the rest, after int64 max nothing', async () => {
      const tenant = await createTenant(database);
      const top = await create(tenant, { name: 'Top' });
      const first = await create(tenant, { name: 'A', parent_id: top.department_id });
      const second = await create(tenant, { name: 'B', parent_id: top.department_id });
      const token = (await list(tenant, { parent_id: top.department_id, page_size: 1 }).expect(200)).body.next_page_token as string;
      const atFirst = withPosition(token, String(first.order), first.department_id);
      expect((await list(tenant, { parent_id: top.department_id, page_token: atFirst }).expect(200)).body).toEqual({ items: [second], next_page_token: null });
      const atEnd = withPosition(token, '9223372036854775807');
      expect((await list(tenant, { parent_id: top.department_id, page_token: atEnd }).expect(200)).body).toEqual({ items: [], next_page_token: null });
    });

    it('refuses unknown query parameters and a parent_id that is not a uuid', async () => {
      const tenant = await createTenant(database);
      const unknown = await list(tenant, { parentId: MISSING }).expect(400);
      expect(unknown.body.details).toMatchObject({ field: 'parentId', reason: 'unknown_field' });
      const notUuid = await list(tenant, { parent_id: 'top' }).expect(400);
      expect(notUuid.body.details).toMatchObject({ field: 'parent_id', reason: 'invalid_format' });
    });
  });

  describe('hostile query strings: refused with the field named, never silently changed', () => {
    it.each([
      ['NUL', 'external_id=a%00b', 'external_id', 'invalid_value'],
      ['a lone surrogate', 'external_id=%ED%A0%80', 'external_id', 'invalid_value'],
      ['invalid UTF-8', 'external_id=caf%E9', 'external_id', 'invalid_value'],
      ['a stray percent sign', 'page_token=50%', 'page_token', 'invalid_value'],
      ['a repeated parameter', 'parent_id=00000000-0000-4000-8000-000000000000&parent_id=00000000-0000-4000-8000-000000000001', 'parent_id', 'invalid_type'],
      ['a reserved key', 'constructor=x', 'constructor', 'unknown_field'],
    ])('%s: 400 naming %s', async (_case, query, field, reason) => {
      const tenant = await createTenant(database);
      const response = await app.http().get(`${PATH}?${query}`).set('Authorization', tenant.bearer).expect(400);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toMatchObject({ field, reason });
    });
  });

  describe('GET /departments?external_id=…', () => {
    it('finds the department with that source-system id anywhere in the tree, as a list of zero or one', async () => {
      const tenant = await createTenant(database);
      const stranger = await createTenant(database);
      const top = await create(tenant, { name: 'Top', external_id: 'hr-top' });
      const deep = await create(tenant, { name: 'Deep', parent_id: (await create(tenant, { name: 'Mid', parent_id: top.department_id })).department_id, external_id: 'hr-deep' });
      await create(stranger, { name: 'Theirs', external_id: 'hr-theirs' });

      expect((await list(tenant, { external_id: 'hr-deep' }).expect(200)).body).toEqual({ items: [deep], next_page_token: null });
      expect((await list(tenant, { external_id: 'hr-top' }, otherApp).expect(200)).body).toEqual({ items: [top], next_page_token: null });
      expect((await list(tenant, { external_id: 'hr-unknown' }).expect(200)).body).toEqual({ items: [], next_page_token: null });
      expect((await list(tenant, { external_id: 'hr-theirs' }).expect(200)).body).toEqual({ items: [], next_page_token: null });
      expect((await list(tenant, { external_id: 'HR-DEEP' }).expect(200)).body.items).toEqual([]);
    });

    it('cannot be combined with parent_id or page_token', async () => {
      const tenant = await createTenant(database);
      const queries: Array<Record<string, string>> = [{ external_id: 'x', parent_id: MISSING }, { external_id: 'x', page_token: 'abc' }];
      for (const query of queries) {
        const response = await list(tenant, query).expect(400);
        expect(response.body.details).toMatchObject({ field: 'external_id', reason: 'conflicting_fields' });
      }
    });
  });

  describe('OpenAPI', () => {
    it('documents both reads under Directory with the read scope, the pagination parameters and the page schema', async () => {
      const document = (await app.http().get('/docs-json').expect(200)).body;
      const getOne = document.paths[`${PATH}/{department_id}`].get;
      const getMany = document.paths[PATH].get;
      for (const operation of [getOne, getMany]) {
        expect(operation.tags).toEqual(['Directory']);
        expect(operation['x-required-scope']).toBe(DirectoryScope.Read);
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '429']));
      }
      expect(getOne.operationId).toBe('getDepartment');
      expect(getMany.operationId).toBe('listDepartments');
      const parameters = Object.fromEntries((getMany.parameters as Array<{ name: string; in: string; schema: Record<string, unknown> }>).map((p) => [p.name, p]));
      expect(Object.keys(parameters).sort()).toEqual(['external_id', 'page_size', 'page_token', 'parent_id', 'recursive']);
      expect(parameters.page_size.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
      expect(parameters.parent_id.in).toBe('query');
      const page = document.components.schemas.DepartmentPageDto;
      expect(page.required).toEqual(expect.arrayContaining(['items', 'next_page_token']));
      expect(page.properties.next_page_token).toMatchObject({ type: 'string', nullable: true });
      // Swagger UI sends a parameter's example with "Try it out": none of them carries one, since a
      // page_token or external_id sent that way fails (docs/openapi-document.md).
      for (const parameter of Object.values(parameters)) {
        expect({ name: parameter.name, example: parameter.schema.example ?? (parameter as { example?: unknown }).example }).toEqual({ name: parameter.name, example: undefined });
      }
    });
  });
});
