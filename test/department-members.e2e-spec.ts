import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './client/schema';
import { createTenant, useTestApp, type TestTenant } from './support/test-app';

/**
 * Memberships from the department's side (PUT, DELETE, GET …/departments/{department_id}/members),
 * through the typed client (test/client/schema.d.ts); users and departments are made over HTTP.
 */
describe('department members', () => {
  const context = useTestApp({ listen: true });
  let client: Client<paths>;

  beforeAll(() => {
    client = clientFor(context.tenant);
  });

  const clientFor = (tenant: TestTenant) => createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: tenant.bearer } });
  const newDepartment = async (name: string, parentId?: string, tenant = context.tenant): Promise<string> => {
    const answer = await context.http().post('/api/openapi/v1/departments').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID())
      .send({ name, ...(parentId ? { parent_id: parentId } : {}) });
    expect(answer.status).toBe(201);
    return answer.body.department_id as string;
  };
  const newUser = async (userName = `user-${randomUUID()}`, tenant = context.tenant): Promise<string> => {
    const answer = await context.http().post('/api/openapi/v1/users').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ user_name: userName });
    expect(answer.status).toBe(201);
    return answer.body.user_id as string;
  };
  // Set-up one request at a time: a burst of creates would queue on the pool and, on a loaded machine, time out as 503.
  const inTurn = async <T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> => {
    const made: T[] = [];
    for (let index = 0; index < count; index += 1) made.push(await make(index));
    return made;
  };
  const add = (department_id: string, user_id: string, via = client) =>
    via.PUT('/api/openapi/v1/departments/{department_id}/members/{user_id}', { params: { path: { department_id, user_id } } });
  const remove = (department_id: string, user_id: string, via = client) =>
    via.DELETE('/api/openapi/v1/departments/{department_id}/members/{user_id}', { params: { path: { department_id, user_id } } });
  const list = (department_id: string, query: { recursive?: 'true' | 'false'; page_size?: number; page_token?: string } = {}) =>
    client.GET('/api/openapi/v1/departments/{department_id}/members', { params: { path: { department_id }, query } });
  const allMembers = async (departmentId: string, recursive: 'true' | 'false', pageSize: number): Promise<string[]> => {
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const page = await list(departmentId, { recursive, page_size: pageSize, ...(token ? { page_token: token } : {}) });
      expect(page.response.status).toBe(200);
      ids.push(...page.data!.items.map((item) => item.user_id));
      token = page.data!.next_page_token ?? undefined;
    } while (token);
    return ids;
  };
  const userOf = async (userId: string) => (await context.http().get(`/api/openapi/v1/users/${userId}`).set('Authorization', context.tenant.bearer).expect(200)).body as unknown;
  const etagOf = async (userId: string) => (await context.http().get(`/api/openapi/v1/users/${userId}`).set('Authorization', context.tenant.bearer)).headers.etag as string;
  const eventsOf = async (departmentId: string) =>
    (await client.GET('/api/openapi/v1/audit-events', { params: { query: { resource_type: 'department', resource_id: departmentId } } })).data!.items
      .filter((event) => event.action.startsWith('department.member_'))
      .map((event) => ({ action: event.action, changes: event.changes }));

  it('adds (201, the first membership becomes primary, revision and ETag change), then answers 200 with no change', async () => {
    const department = await newDepartment(`Sales ${randomUUID()}`);
    const user = await newUser();
    const before = await etagOf(user);

    const first = await add(department.toUpperCase(), user.toUpperCase());
    expect({ status: first.response.status, data: first.data }).toEqual({
      status: 201,
      data: expect.objectContaining({ user_id: user, department_ids: [department], primary_department_id: department, revision: 2 }),
    });
    // The answer is the user as GET /users/{user_id} reads it now.
    expect(first.data).toEqual(await userOf(user));
    const after = await etagOf(user);
    expect([before, after]).toEqual(['"1"', '"2"']);

    const again = await add(department, user);
    expect({ status: again.response.status, data: again.data }).toEqual({ status: 200, data: first.data });
    expect(await etagOf(user)).toBe('"2"');
    expect(await eventsOf(department)).toEqual([
      { action: 'department.member_added', changes: { user_id: { old: null, new: user }, primary_department_id: { old: null, new: department } } },
    ]);

    // A second department: a member too, the primary stays; the event names only the user.
    const other = await newDepartment(`Support ${randomUUID()}`);
    const second = await add(other, user);
    expect({ status: second.response.status, primary: second.data?.primary_department_id, departments: second.data?.department_ids, revision: second.data?.revision }).toEqual({
      status: 201,
      primary: department,
      departments: [department, other],
      revision: 3,
    });
    expect(second.data).toEqual(await userOf(user));
    expect(await eventsOf(other)).toEqual([{ action: 'department.member_added', changes: { user_id: { old: null, new: user } } }]);
  });

  it('removes (204); the earliest-added remaining membership becomes primary, then null; 404 when not a member', async () => {
    const [a, b, c] = [await newDepartment(`A ${randomUUID()}`), await newDepartment(`B ${randomUUID()}`), await newDepartment(`C ${randomUUID()}`)];
    const user = await newUser();
    for (const department of [a, b, c]) expect((await add(department, user)).response.status).toBe(201);
    expect(await etagOf(user)).toBe('"4"');

    expect((await remove(a, user)).response.status).toBe(204);
    expect(await etagOf(user)).toBe('"5"');
    const read = await list(b);
    expect(read.data!.items).toEqual([expect.objectContaining({ user_id: user, department_ids: [b, c], primary_department_id: b, revision: 5 })]);
    expect(read.data!.items).toEqual([await userOf(user)]);
    expect(await eventsOf(a)).toEqual([
      { action: 'department.member_removed', changes: { user_id: { old: user, new: null }, primary_department_id: { old: a, new: b } } },
      { action: 'department.member_added', changes: { user_id: { old: null, new: user }, primary_department_id: { old: null, new: a } } },
    ]);

    expect((await remove(c, user)).response.status).toBe(204);
    expect((await list(b)).data!.items[0].primary_department_id).toBe(b);
    expect((await remove(b, user)).response.status).toBe(204);
    expect(await eventsOf(b)).toEqual([
      { action: 'department.member_removed', changes: { user_id: { old: user, new: null }, primary_department_id: { old: b, new: null } } },
      { action: 'department.member_added', changes: { user_id: { old: null, new: user } } },
    ]);
    expect(await etagOf(user)).toBe('"7"');

    const notMember = await remove(b, user);
    expect({ status: notMember.response.status, code: notMember.error?.code, field: notMember.error?.details?.field }).toEqual({ status: 404, code: 'NOT_FOUND', field: 'user_id' });
    expect(await etagOf(user)).toBe('"7"');
    expect((await eventsOf(b)).length).toBe(2);
  });

  it('answers 404 naming the department or the user, another organization\'s alike, and writes nothing', async () => {
    const department = await newDepartment(`D ${randomUUID()}`);
    const user = await newUser();
    const other = await createTenant(context.database);
    const theirDepartment = await newDepartment(`Theirs ${randomUUID()}`, undefined, other);
    const theirUser = await newUser(undefined, other);
    const cases: Array<[string, string, string]> = [
      [randomUUID(), user, 'department_id'],
      [theirDepartment, user, 'department_id'],
      [randomUUID(), randomUUID(), 'department_id'],
      [department, randomUUID(), 'user_id'],
      [department, theirUser, 'user_id'],
    ];
    for (const [departmentId, userId, field] of cases) {
      for (const answer of [await add(departmentId, userId), await remove(departmentId, userId)]) {
        expect({ status: answer.response.status, code: answer.error?.code, field: answer.error?.details?.field }).toEqual({ status: 404, code: 'NOT_FOUND', field });
      }
    }
    const missing = await list(theirDepartment);
    expect({ status: missing.response.status, code: missing.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await eventsOf(department)).toEqual([]);
    expect(await etagOf(user)).toBe('"1"');
  });

  it('refuses bad path and query values with the error body naming the field', async () => {
    const department = await newDepartment(`Q ${randomUUID()}`);
    const user = await newUser();
    const badPaths = [await add('nope', user), await add(department, 'nope'), await remove('nope', user), await remove(department, '123')];
    expect(badPaths.map((answer) => [answer.response.status, answer.error?.code, answer.error?.details?.field])).toEqual([
      [400, 'VALIDATION_FAILED', 'department_id'],
      [400, 'VALIDATION_FAILED', 'user_id'],
      [400, 'VALIDATION_FAILED', 'department_id'],
      [400, 'VALIDATION_FAILED', 'user_id'],
    ]);
    const query = (text: string) => context.http().get(`/api/openapi/v1/departments/${department}/members?${text}`).set('Authorization', context.tenant.bearer);
    for (const [text, field] of [
      ['recursive=yes', 'recursive'],
      ['recursive=', 'recursive'],
      ['recursive=true&recursive=false', 'recursive'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page_size=abc', 'page_size'],
      ['page_token=garbage', 'page_token'],
      ['colour=red', 'colour'],
    ]) {
      const answer = await query(text);
      expect([text, answer.status, answer.body.code, answer.body.details?.field]).toEqual([text, 400, 'VALIDATION_FAILED', field]);
    }
    const listBadId = await context.http().get('/api/openapi/v1/departments/nope/members').set('Authorization', context.tenant.bearer);
    expect([listBadId.status, listBadId.body.details?.field]).toEqual([400, 'department_id']);

    // A token of the direct list is not one of the recursive list (and the other way round).
    for (let i = 0; i < 3; i += 1) await add(department, await newUser());
    const token = (await list(department, { page_size: 1 })).data!.next_page_token!;
    const crossed = await list(department, { recursive: 'true', page_token: token });
    expect([crossed.response.status, crossed.error?.details?.field]).toEqual([400, 'page_token']);
  });

  it('refuses a 51st department with 422 USER_DEPARTMENT_LIMIT_REACHED, and still answers 200 for a department the user has', async () => {
    const departments = await inTurn(51, (index) => newDepartment(`Limit ${index} ${randomUUID()}`));
    const created = await context.http().post('/api/openapi/v1/users').set('Authorization', context.tenant.bearer).set('Idempotency-Key', randomUUID())
      .send({ user_name: `full-${randomUUID()}`, department_ids: departments.slice(0, 49) }).expect(201);
    const user = created.body.user_id as string;
    expect((await add(departments[49], user)).response.status).toBe(201);
    const refused = await add(departments[50], user);
    expect({ status: refused.response.status, code: refused.error?.code, field: refused.error?.details?.field }).toEqual({ status: 422, code: 'USER_DEPARTMENT_LIMIT_REACHED', field: 'user_id' });
    expect((await add(departments[10], user)).response.status).toBe(200);
    expect(await etagOf(user)).toBe('"2"');
    expect(await eventsOf(departments[50])).toEqual([]);
  });

  it('lists direct members and, with recursive=true, the subtree\'s members each once, in keyset pages by user_id', async () => {
    const root = await newDepartment(`Root ${randomUUID()}`);
    const child = await newDepartment('Child', root);
    const grandchild = await newDepartment('Grandchild', child);
    const sibling = await newDepartment(`Outside ${randomUUID()}`);
    const users = await inTurn(7, () => newUser());
    // users 0–1 in root, 1–3 in child, 3–5 in grandchild (1 and 3 twice in the subtree), 6 outside only.
    const memberships: Array<[string, number[]]> = [[root, [0, 1]], [child, [1, 2, 3]], [grandchild, [3, 4, 5]], [sibling, [6, 0]]];
    for (const [department, indexes] of memberships) for (const index of indexes) expect((await add(department, users[index])).response.status).toBe(201);
    const sorted = (indexes: number[]) => indexes.map((index) => users[index]).sort();

    expect(await allMembers(root, 'false', 1)).toEqual(sorted([0, 1]));
    expect(await allMembers(child, 'false', 2)).toEqual(sorted([1, 2, 3]));
    expect(await allMembers(root, 'true', 2)).toEqual(sorted([0, 1, 2, 3, 4, 5]));
    expect(await allMembers(child, 'true', 100)).toEqual(sorted([1, 2, 3, 4, 5]));
    expect(await allMembers(grandchild, 'true', 3)).toEqual(sorted([3, 4, 5]));
    const empty = await list(await newDepartment(`Empty ${randomUUID()}`, root), { recursive: 'true' });
    expect({ status: empty.response.status, data: empty.data }).toEqual({ status: 200, data: { items: [], next_page_token: null } });
  });
});
