import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './client/schema';
import { expectErrorBody } from './support/error-body';
import { createTenant, useTestApp, type TestTenant } from './support/test-app';

const PATH = '/api/openapi/v1/departments';
const at = (id: string) => `${PATH}/${id}`;

/** PATCH, DELETE, ancestors and the recursive list of departments (CONTRACT.md section 11), one organization per test. */
describe('department maintenance', () => {
  const context = useTestApp({ listen: true });
  let tenant: TestTenant;

  beforeEach(async () => {
    tenant = await createTenant(context.database);
  });

  const client = (): Client<paths> => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: tenant.bearer } });
  const create = async (name: string, parentId: string | null = null, externalId?: string) => {
    const response = await context
      .http()
      .post(PATH)
      .set('Authorization', tenant.bearer)
      .set('Idempotency-Key', randomUUID())
      .send({ name, parent_id: parentId, ...(externalId ? { external_id: externalId } : {}) });
    expect(response.status).toBe(201);
    return response.body as { department_id: string; order: number; revision: number; updated_at: string };
  };
  const patch = (id: string, body: object, headers: Record<string, string> = {}) => context.http().patch(at(id)).set('Authorization', tenant.bearer).set(headers).send(body);
  const remove = (id: string, headers: Record<string, string> = {}) => context.http().delete(at(id)).set('Authorization', tenant.bearer).set(headers);
  const get = (id: string) => context.http().get(at(id)).set('Authorization', tenant.bearer);
  const events = (action?: string) =>
    context.database.prisma.auditEvent.findMany({ where: { organizationId: tenant.organizationId, action: action ?? { in: ['department.updated', 'department.deleted'] } }, orderBy: { id: 'asc' } });
  /** Every department's parent chain and stored path agree, and each reaches the top level. */
  const expectConsistentTree = async () => {
    const rows = await context.database.prisma.department.findMany({ where: { organizationId: tenant.organizationId } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const row of rows) {
      const chain: string[] = [];
      for (let current: typeof row | undefined = row; current; current = current.parentId ? byId.get(current.parentId) : undefined) {
        chain.unshift(current.id);
        expect(chain.length).toBeLessThanOrEqual(32);
      }
      expect(byId.get(chain[0])!.parentId).toBeNull();
      expect(row.path).toBe(chain.map((id) => `${id}/`).join(''));
    }
  };

  describe('GET with an ETag', () => {
    it('answers ETag "<revision>" and 304 to If-None-Match holding it, 200 after a change', async () => {
      const department = await create('Research');
      const first = await get(department.department_id).expect(200);
      expect(first.headers.etag).toBe('"1"');
      expect(first.body).toMatchObject({ revision: 1, created_at: department.updated_at, updated_at: department.updated_at });
      await get(department.department_id).set('If-None-Match', '"1"').expect(304);
      await patch(department.department_id, { name: 'R&D' }).expect(200);
      const changed = await get(department.department_id).set('If-None-Match', '"1"').expect(200);
      expect(changed.headers.etag).toBe('"2"');
    });
  });

  describe('PATCH', () => {
    it('renames, sets and clears external_id and reorders through the typed client: revision + 1, one event with the changed fields', async () => {
      const department = await create('Research', null, 'rd-1');
      const answer = await client().PATCH('/api/openapi/v1/departments/{department_id}', {
        params: { path: { department_id: department.department_id } },
        body: { name: '  Forschung\u0301  ', external_id: null, order: 7, expected_revision: 1 },
      });
      expect(answer.response.status).toBe(200);
      expect(answer.response.headers.get('etag')).toBe('"2"');
      expect(answer.data).toMatchObject({ name: 'Forschung\u0301'.normalize('NFC'), external_id: null, order: 7, revision: 2, parent_id: null });
      expect(Date.parse(answer.data!.updated_at)).toBeGreaterThanOrEqual(Date.parse(department.updated_at));
      const [event] = await events();
      expect(event).toMatchObject({ action: 'department.updated', resourceId: department.department_id, revisionBefore: 1n, revisionAfter: 2n });
      expect(event.changes).toEqual({
        name: { old: 'Research', new: 'Forschung\u0301'.normalize('NFC') },
        external_id: { old: 'rd-1', new: null },
        order: { old: 1, new: 7 },
      });
      // The department is free to take its external_id back, and siblings may tie on order.
      const sibling = await create('Sales');
      expect((await patch(sibling.department_id, { order: 7, external_id: 'rd-1' }).expect(200)).body).toMatchObject({ order: 7, external_id: 'rd-1' });
    });

    it('changes nothing for the stored values or an empty body: same revision, no event', async () => {
      const department = await create('Research', null, 'rd-1');
      const same = await patch(department.department_id, { name: ' Research ', external_id: 'rd-1', order: 1, parent_id: null }).expect(200);
      expect(same.body).toMatchObject({ revision: 1, updated_at: department.updated_at });
      expect(same.headers.etag).toBe('"1"');
      await patch(department.department_id, {}).expect(200);
      expect(await events()).toEqual([]);
    });

    it('refuses stale revisions, both preconditions at once and If-None-Match: * without writing', async () => {
      const department = await create('Research');
      await patch(department.department_id, { name: 'A' }).expect(200);
      const stale = await patch(department.department_id, { name: 'B', expected_revision: 1 });
      expectErrorBody(stale, 409, 'REVISION_CONFLICT', 'conflict');
      expect(stale.body.details).toEqual({ field: 'expected_revision', reason: 'revision_mismatch', suggestion: '2' });
      const staleTag = await patch(department.department_id, { name: 'B' }, { 'If-Match': '"1"' });
      expectErrorBody(staleTag, 412, 'PRECONDITION_FAILED', 'precondition_failed');
      expect(staleTag.body.details).toMatchObject({ field: 'If-Match', suggestion: '2' });
      expectErrorBody(await patch(department.department_id, { name: 'B', expected_revision: 1 }, { 'If-Match': '"2"' }), 400, 'VALIDATION_FAILED', 'bad_request');
      expectErrorBody(await patch(department.department_id, { name: 'B' }, { 'If-None-Match': '*' }), 412, 'PRECONDITION_FAILED', 'precondition_failed');
      expectErrorBody(await patch(department.department_id, { name: 'B', parent_id: null }, { 'If-Match': '"1"' }), 412, 'PRECONDITION_FAILED', 'precondition_failed');
      expect((await patch(department.department_id, { name: 'B' }, { 'If-Match': '"2"' }).expect(200)).body.revision).toBe(3);
      expect((await events()).map((event) => event.revisionAfter)).toEqual([2n, 3n]);
    });

    it('refuses every bad value of every field with 400 naming it, changing nothing', async () => {
      const department = await create('Research');
      const cases: [object, string, string][] = [
        [{ name: '' }, 'name', 'must_not_be_blank'],
        [{ name: '\u200b ' }, 'name', 'must_not_be_blank'],
        [{ name: 'x'.repeat(256) }, 'name', 'too_long'],
        [{ name: null }, 'name', 'invalid_type'],
        [{ external_id: ' x' }, 'external_id', 'invalid_format'],
        [{ external_id: 'x'.repeat(513) }, 'external_id', 'too_long'],
        [{ external_id: 5 }, 'external_id', 'invalid_type'],
        [{ order: -1 }, 'order', 'invalid_value'],
        [{ order: 1.5 }, 'order', 'invalid_type'],
        [{ order: 2 ** 53 }, 'order', 'invalid_value'],
        [{ order: '3' }, 'order', 'invalid_type'],
        [{ parent_id: 'nope' }, 'parent_id', 'invalid_format'],
        [{ parent_id: 5 }, 'parent_id', 'invalid_type'],
        [{ expected_revision: 0 }, 'expected_revision', 'invalid_value'],
        [{ colour: 'red' }, 'colour', 'unknown_field'],
      ];
      for (const [body, field, reason] of cases) {
        const response = await patch(department.department_id, body);
        expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
        expect({ body, details: response.body.details }).toEqual({ body, details: expect.objectContaining({ field, reason }) });
      }
      expect((await get(department.department_id)).body.revision).toBe(1);
      expect(await events()).toEqual([]);
    });

    it('answers 400 for a path that is not a uuid or a malformed If-Match, and 404 for an unknown department', async () => {
      expect((await patch('nope', { name: 'A' })).body.details).toMatchObject({ field: 'department_id' });
      const department = await create('Research');
      expect((await patch(department.department_id, { name: 'A' }, { 'If-Match': 'W/"1"' })).body.details).toMatchObject({ field: 'If-Match', reason: 'invalid_format' });
      expectErrorBody(await patch(randomUUID(), { name: 'A' }), 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(await patch(randomUUID(), { parent_id: null }), 404, 'NOT_FOUND', 'not_found');
    });

    it('refuses a sibling name and an external_id already taken, against the new siblings on a move', async () => {
      const a = await create('A');
      const b = await create('B', null, 'b-1');
      const child = await create('b', a.department_id);
      expectErrorBody(await patch(a.department_id, { name: 'b' }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      expectErrorBody(await patch(a.department_id, { external_id: 'b-1' }), 409, 'EXTERNAL_ID_CONFLICT', 'conflict');
      expectErrorBody(await patch(child.department_id, { parent_id: null }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      expect((await patch(child.department_id, { parent_id: null, name: 'C' }).expect(200)).body).toMatchObject({ parent_id: null, name: 'C' });
      expect(b.department_id).toBeDefined();
      expect((await events()).length).toBe(1);
    });

    it('moves a department with its subtree: new paths, the next order among the new siblings, ancestors follow', async () => {
      const a = await create('A');
      const b = await create('B');
      await create('B1', b.department_id);
      const a1 = await create('A1', a.department_id);
      const a11 = await create('A11', a1.department_id);
      const moved = await patch(a.department_id, { parent_id: b.department_id }).expect(200);
      expect(moved.body).toMatchObject({ parent_id: b.department_id, order: 2, revision: 2 });
      const ancestors = await client().GET('/api/openapi/v1/departments/{department_id}/ancestors', { params: { path: { department_id: a11.department_id } } });
      expect(ancestors.data!.items.map((item) => item.department_id)).toEqual([b.department_id, a.department_id, a1.department_id]);
      // The subtree's own fields stay as they were.
      expect((await get(a1.department_id)).body).toMatchObject({ revision: 1, parent_id: a.department_id });
      const [event] = await events();
      expect(event.changes).toEqual({ parent_id: { old: null, new: b.department_id }, order: { old: 1, new: 2 } });
      const back = await patch(a.department_id, { parent_id: null, order: 0 }).expect(200);
      expect(back.body).toMatchObject({ parent_id: null, order: 0, revision: 3 });
      expect((await create('C')).order).toBe(4);
      await expectConsistentTree();
    });

    it('refuses a move into the own subtree (409 DEPARTMENT_CYCLE) and to an unknown parent (422), writing nothing', async () => {
      const a = await create('A');
      const a1 = await create('A1', a.department_id);
      for (const parent of [a.department_id, a1.department_id]) {
        const response = await patch(a.department_id, { parent_id: parent });
        expectErrorBody(response, 409, 'DEPARTMENT_CYCLE', 'conflict');
        expect(response.body.details).toMatchObject({ field: 'parent_id' });
      }
      const unknown = await patch(a1.department_id, { parent_id: randomUUID() });
      expectErrorBody(unknown, 422, 'PARENT_NOT_FOUND', 'unprocessable_entity');
      expect(unknown.body.details).toMatchObject({ field: 'parent_id', reason: 'not_found' });
      expect(await events()).toEqual([]);
      expect((await create('A2', a.department_id)).order).toBe(2);
      await expectConsistentTree();
    });

    it('holds the 32-level limit for creates and for moves of whole subtrees', async () => {
      let parent: string | null = null;
      const chain: string[] = [];
      for (let level = 1; level <= 32; level++) {
        parent = (await create(`L${level}`, parent)).department_id;
        chain.push(parent);
      }
      const tooDeep = await context.http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: 'L33', parent_id: parent });
      expectErrorBody(tooDeep, 422, 'DEPARTMENT_TOO_DEEP', 'unprocessable_entity');
      expect(tooDeep.body.details).toMatchObject({ field: 'parent_id' });
      const other = await create('Other');
      await create('Other child', other.department_id);
      // Other (height 2) fits under level 30, not under level 31.
      await patch(other.department_id, { parent_id: chain[29] }).expect(200);
      expectErrorBody(await patch(other.department_id, { parent_id: chain[30] }), 422, 'DEPARTMENT_TOO_DEEP', 'unprocessable_entity');
      expect((await events()).length).toBe(1);
      await expectConsistentTree();
    });
  });

  describe('DELETE', () => {
    it('deletes through the typed client: 204, then 404 everywhere, name and external_id free, one event', async () => {
      const parent = await create('Parent');
      const department = await create('Research', parent.department_id, 'rd-1');
      const answer = await client().DELETE('/api/openapi/v1/departments/{department_id}', { params: { path: { department_id: department.department_id } } });
      expect(answer.response.status).toBe(204);
      expectErrorBody(await get(department.department_id), 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(await patch(department.department_id, { name: 'X' }), 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(await remove(department.department_id), 404, 'NOT_FOUND', 'not_found');
      expectErrorBody(await context.http().get(`${at(department.department_id)}/ancestors`).set('Authorization', tenant.bearer), 404, 'NOT_FOUND', 'not_found');
      await create('Research', parent.department_id, 'rd-1');
      const [event] = await events('department.deleted');
      expect(event).toMatchObject({ resourceId: department.department_id, revisionBefore: 1n, revisionAfter: null });
      expect(event.changes).toEqual({
        name: { old: 'Research', new: null },
        external_id: { old: 'rd-1', new: null },
        parent_id: { old: parent.department_id, new: null },
        order: { old: 1, new: null },
      });
    });

    it('refuses a department with children (409, how many) and a stale If-Match (412), writing nothing', async () => {
      const parent = await create('Parent');
      await create('One', parent.department_id);
      await create('Two', parent.department_id);
      const notEmpty = await remove(parent.department_id);
      expectErrorBody(notEmpty, 409, 'DEPARTMENT_NOT_EMPTY', 'conflict');
      expect(notEmpty.body.detail).toContain('2 child departments');
      const leaf = await create('Leaf');
      await patch(leaf.department_id, { name: 'Leaf 2' }).expect(200);
      expectErrorBody(await remove(leaf.department_id, { 'If-Match': '"1"' }), 412, 'PRECONDITION_FAILED', 'precondition_failed');
      expectErrorBody(await remove(leaf.department_id, { 'If-None-Match': '*' }), 412, 'PRECONDITION_FAILED', 'precondition_failed');
      expect((await remove(leaf.department_id, { 'If-Match': 'x' })).body.details).toMatchObject({ field: 'If-Match', reason: 'invalid_format' });
      expect((await remove('nope')).body.details).toMatchObject({ field: 'department_id' });
      expect(await events('department.deleted')).toEqual([]);
      await remove(leaf.department_id, { 'If-Match': '"2"' }).expect(204);
    });
  });

  describe('DELETE of a department with members', () => {
    it('is refused while it has members (409, how many of each), and goes once they are removed', async () => {
      const department = await create('Staffed');
      await create('Sub', department.department_id);
      const member = async (user_name: string) =>
        (
          await context
            .http()
            .post('/api/openapi/v1/users')
            .set('Authorization', tenant.bearer)
            .set('Idempotency-Key', randomUUID())
            .send({ user_name, department_ids: [department.department_id] })
            .expect(201)
        ).body.user_id as string;
      const users = [await member(`m-${randomUUID()}`), await member(`m-${randomUUID()}`)];
      const notEmpty = await remove(department.department_id);
      expectErrorBody(notEmpty, 409, 'DEPARTMENT_NOT_EMPTY', 'conflict');
      expect(notEmpty.body.detail).toContain('1 child department and 2 members');
      const [child] = (await context.http().get(PATH).query({ parent_id: department.department_id }).set('Authorization', tenant.bearer).expect(200)).body.items;
      await remove(child.department_id).expect(204);
      expect((await remove(department.department_id)).body.detail).toContain('has 2 members;');
      for (const user of users) await context.http().delete(`${at(department.department_id)}/members/${user}`).set('Authorization', tenant.bearer).expect(204);
      await remove(department.department_id).expect(204);
      const deletedIds = (await events('department.deleted')).map((event) => event.resourceId);
      expect(deletedIds).toEqual(expect.arrayContaining([child.department_id, department.department_id]));
    });
  });

  describe('GET ancestors', () => {
    it('is empty for a top-level department, 400 for a path that is not a uuid', async () => {
      const top = await create('Top');
      expect((await context.http().get(`${at(top.department_id)}/ancestors`).set('Authorization', tenant.bearer).expect(200)).body).toEqual({ items: [] });
      const bad = await context.http().get(`${at('nope')}/ancestors`).set('Authorization', tenant.bearer);
      expectErrorBody(bad, 400, 'VALIDATION_FAILED', 'bad_request');
    });
  });

  describe('GET ?recursive=true', () => {
    it('lists every department below a parent, or the whole tree, each before its descendants, in keyset pages', async () => {
      const a = await create('A');
      const b = await create('B');
      const a1 = await create('A1', a.department_id);
      const a11 = await create('A11', a1.department_id);
      const a2 = await create('A2', a.department_id);
      const b1 = await create('B1', b.department_id);
      const list = (query: Record<string, string>) => context.http().get(PATH).query(query).set('Authorization', tenant.bearer);

      const seen: string[] = [];
      let token: string | null = null;
      do {
        const query: Record<string, string> = { recursive: 'true', page_size: '2' };
        if (token) query.page_token = token;
        const page: { body: { items: { department_id: string }[]; next_page_token: string | null } } = await list(query).expect(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((item) => item.department_id));
        token = page.body.next_page_token;
      } while (token);
      expect(new Set(seen).size).toBe(6);
      const position = (id: string) => seen.indexOf(id);
      for (const [ancestor, descendant] of [[a, a1], [a1, a11], [a, a2], [b, b1]]) expect(position(ancestor.department_id)).toBeLessThan(position(descendant.department_id));

      const below = await list({ recursive: 'true', parent_id: a.department_id.toUpperCase() }).expect(200);
      expect(below.body.items.map((item: { department_id: string }) => item.department_id).sort()).toEqual([a1, a11, a2].map((d) => d.department_id).sort());
      expect((await list({ recursive: 'false', parent_id: a.department_id }).expect(200)).body.items).toHaveLength(2);
      expect((await list({ recursive: 'true', parent_id: a11.department_id }).expect(200)).body).toEqual({ items: [], next_page_token: null });
    });

    it('refuses recursive with external_id, a bad recursive, a token of another query and an unknown parent', async () => {
      const a = await create('A');
      await create('A1', a.department_id);
      await create('A2', a.department_id);
      const list = (query: Record<string, string>) => context.http().get(PATH).query(query).set('Authorization', tenant.bearer);
      const conflicting = await list({ recursive: 'true', external_id: 'x' });
      expectErrorBody(conflicting, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(conflicting.body.details).toMatchObject({ field: 'external_id', reason: 'conflicting_fields' });
      expect((await list({ recursive: 'yes' })).body.details).toMatchObject({ field: 'recursive', reason: 'invalid_value' });
      const page = await list({ recursive: 'true', page_size: '1' }).expect(200);
      expect((await list({ page_token: page.body.next_page_token })).body.details).toMatchObject({ field: 'page_token', reason: 'invalid_value' });
      expect((await list({ recursive: 'true', parent_id: a.department_id, page_token: page.body.next_page_token })).body.details).toMatchObject({ field: 'page_token' });
      expectErrorBody(await list({ recursive: 'true', parent_id: randomUUID() }), 404, 'NOT_FOUND', 'not_found');
    });
  });
});
