import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import request from 'supertest';
import { Prisma } from '../src/generated/prisma/client';
import { MAX_MEMBERS_PER_ANSWER } from '../src/modules/scim/scim-groups.service';
import { ScimScope } from '../src/modules/scim/scim.scopes';
import type { paths } from './client/schema';
import { createApiKey, testConfig, useTestApp, useTestDatabase, type TestTenant } from './support/test-app';

const GROUPS = '/scim/v2/Groups';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const WORKSPACE = 'urn:ietf:params:scim:schemas:extension:workspace:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

type Body = Record<string, unknown>;

/**
 * SCIM 2.0 Groups (CONTRACT.md section 12) over HTTP: departments and their direct members, with
 * the requests Microsoft Entra ID and Okta send, the REST API reading what SCIM wrote and the other
 * way round, and the audit trail of each change.
 */
describe('SCIM Groups', () => {
  // Listening, so that every answer names the same address in meta.location and $ref; webhook endpoints on the loopback address.
  const context = useTestApp({ listen: true, overrides: { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' } });
  /** A key holding only the SCIM scope, as an administrator issues one for an identity provider: the actor of every SCIM change here. */
  let scimKey: TestTenant;
  /** The typed client (test/client/schema.d.ts) with that key: each SCIM operation named by its literal path. */
  let typed: Client<paths>;
  beforeAll(async () => {
    scimKey = await createApiKey(context.database, context.tenant.organizationId, [ScimScope.Provision]);
    typed = createClient<paths>({ baseUrl: context.baseUrl, headers: { Authorization: scimKey.bearer } });
  });
  /** The REST API's key (every scope): users made, departments and audit events read beside SCIM. */
  const bearer = () => context.tenant.bearer;

  /** A raw request with the SCIM key, for what a typed client cannot send (a body that is no JSON, headers by hand). */
  const scim = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: unknown, headers: Record<string, string> = {}) => {
    let call = request(context.baseUrl)[method](path).set('Authorization', scimKey.bearer);
    for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
    if (body === undefined) return call;
    return call.set('Content-Type', 'application/scim+json').send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const patchOp = (...Operations: Body[]) => ({ schemas: [PATCH_OP], Operations });
  const createGroup = async (body: Body) => {
    const answer = await scim('post', GROUPS, { schemas: [GROUP_SCHEMA], ...body });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 201, body: expect.anything() });
    return answer.body as Body & { id: string; meta: { version: string } };
  };
  const newGroup = async (body: Body = {}) => createGroup({ displayName: `G ${randomUUID().slice(0, 8)}`, ...body });
  const newUser = async (userName = `user-${randomUUID()}`) => {
    const answer = await context.http().post('/api/openapi/v1/users').set('Authorization', bearer()).set('Idempotency-Key', randomUUID()).send({ user_name: userName });
    expect(answer.status).toBe(201);
    return answer.body.user_id as string;
  };
  const restDepartment = async (id: string) => context.http().get(`/api/openapi/v1/departments/${id}`).set('Authorization', bearer());
  const restUser = async (id: string) => (await context.http().get(`/api/openapi/v1/users/${id}`).set('Authorization', bearer())).body as { department_ids: string[]; revision: number };
  const memberIds = async (groupId: string) => {
    const answer = await scim('get', `${GROUPS}/${groupId}`);
    expect(answer.status).toBe(200);
    return ((answer.body.members ?? []) as { value: string }[]).map((member) => member.value).sort();
  };
  const auditOf = async (departmentId: string) => {
    const answer = await context.http().get('/api/openapi/v1/audit-events').query({ resource_type: 'department', resource_id: departmentId }).set('Authorization', bearer());
    expect(answer.status).toBe(200);
    return (answer.body.items as { action: string; actor: { type: string; api_key_id: string | null }; changes: Body; event_id: string }[]).reverse();
  };
  // Events of one millisecond have no order among them (v7 ids, random below the millisecond): compare actions as multisets.
  const actionsOf = async (departmentId: string) => (await auditOf(departmentId)).map((event) => event.action).sort();
  const scimError = (answer: { status: number; body: Body; headers: Record<string, string> }) => ({
    status: answer.status,
    type: answer.headers['content-type'],
    schemas: answer.body.schemas,
    httpStatus: answer.body.status,
    scimType: answer.body.scimType,
  });
  const refused = (status: number, scimType?: string) => ({
    status,
    type: 'application/scim+json; charset=utf-8',
    schemas: [ERROR_SCHEMA],
    httpStatus: String(status),
    scimType,
  });
  const sorted = (ids: string[]) => [...ids].sort();

  describe('create', () => {
    it('creates a top-level department with its members (201, Location, ETag, meta), which the REST API reads at once, audited with the SCIM key as actor', async () => {
      const [ann, bob] = [await newUser(), await newUser()];
      const answer = await scim('post', GROUPS, { schemas: [GROUP_SCHEMA], displayName: '  Research ', externalId: 'grp-research', members: [{ value: ann }, { value: bob.toUpperCase() }] });
      expect(answer.status).toBe(201);
      expect(answer.headers['content-type']).toBe('application/scim+json; charset=utf-8');
      const id = answer.body.id as string;
      expect(answer.body).toEqual({
        schemas: [GROUP_SCHEMA],
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        externalId: 'grp-research',
        displayName: 'Research',
        members: expect.arrayContaining([
          { value: ann, $ref: expect.stringMatching(new RegExp(`/scim/v2/Users/${ann}$`)), type: 'User', display: expect.any(String) },
          expect.objectContaining({ value: bob }),
        ]),
        meta: { resourceType: 'Group', created: expect.stringMatching(/Z$/), lastModified: answer.body.meta.created, location: expect.stringMatching(new RegExp(`/scim/v2/Groups/${id}$`)), version: 'W/"1"' },
      });
      expect(answer.headers.location).toBe(answer.body.meta.location);
      expect(answer.headers.etag).toBe('W/"1"');

      const rest = await restDepartment(id);
      expect(rest.body).toMatchObject({ department_id: id, name: 'Research', external_id: 'grp-research', parent_id: null, revision: 1 });
      expect((await restUser(ann)).department_ids).toEqual([id]);
      const events = await auditOf(id);
      expect(events.map((event) => event.action).sort()).toEqual(['department.created', 'department.member_added', 'department.member_added']);
      expect(new Set(events.map((event) => event.actor.api_key_id))).toEqual(new Set([scimKey.apiKeyId]));
      const added = events.filter((event) => event.action === 'department.member_added');
      expect(sorted(added.map((event) => (event.changes.user_id as { new: string }).new))).toEqual(sorted([ann, bob]));
    });

    it('creates under the parent the workspace extension names, which the REST API shows as parent_id', async () => {
      const parent = await newGroup();
      const child = await createGroup({ schemas: [GROUP_SCHEMA, WORKSPACE], displayName: 'Child', [WORKSPACE]: { parentId: parent.id } });
      expect(child.schemas).toEqual([GROUP_SCHEMA, WORKSPACE]);
      expect(child[WORKSPACE]).toEqual({ parentId: parent.id });
      expect((await restDepartment(child.id)).body.parent_id).toBe(parent.id);
    });

    it('answers 409 uniqueness for a displayName taken under the same parent (ignoring case) or a taken externalId, and writes nothing', async () => {
      const taken = await newGroup({ externalId: `x-${randomUUID()}` });
      const user = await newUser();
      expect(scimError(await scim('post', GROUPS, { schemas: [GROUP_SCHEMA], displayName: (taken.displayName as string).toUpperCase(), members: [{ value: user }] }))).toEqual(refused(409, 'uniqueness'));
      expect(scimError(await scim('post', GROUPS, { schemas: [GROUP_SCHEMA], displayName: 'Other name', externalId: taken.externalId }))).toEqual(refused(409, 'uniqueness'));
      expect((await restUser(user)).department_ids).toEqual([]);
    });

    it('refuses bad input with 400 and the scimType, never a 500, and creates nothing', async () => {
      const before = (await scim('get', `${GROUPS}?count=0`)).body.totalResults;
      const cases: [unknown, string][] = [
        [{ schemas: [GROUP_SCHEMA] }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 42 }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: '   ' }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'x'.repeat(256) }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', externalId: ' padded ' }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', members: [{ value: randomUUID() }] }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', members: [{ value: 'not-a-user' }] }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', members: 'everyone' }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', members: [{ value: randomUUID(), type: 'Group' }] }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', [WORKSPACE]: { parentId: randomUUID() } }, 'invalidValue'],
        [{ schemas: [GROUP_SCHEMA], displayName: 'A', [WORKSPACE]: { parentId: 7 } }, 'invalidValue'],
        ['{"displayName": ', 'invalidSyntax'],
      ];
      for (const [body, scimType] of cases) {
        const answer = await scim('post', GROUPS, body);
        expect({ body, refusal: scimError(answer) }).toEqual({ body, refusal: refused(400, scimType) });
      }
      expect((await scim('get', `${GROUPS}?count=0`)).body.totalResults).toBe(before);
    });
  });

  describe('read', () => {
    it('answers one group with its ETag, 304 to If-None-Match holding it, and honours excludedAttributes and attributes', async () => {
      const user = await newUser();
      const group = await newGroup({ externalId: `e-${randomUUID()}`, members: [{ value: user }] });
      const read = await scim('get', `${GROUPS}/${group.id.toUpperCase()}`);
      expect({ status: read.status, etag: read.headers.etag, body: read.body }).toEqual({ status: 200, etag: 'W/"1"', body: group });
      expect((await scim('get', `${GROUPS}/${group.id}`, undefined, { 'If-None-Match': 'W/"1"' })).status).toBe(304);

      const lean = await scim('get', `${GROUPS}/${group.id}?excludedAttributes=members`);
      expect(lean.body).toEqual({ schemas: group.schemas, id: group.id, externalId: group.externalId, displayName: group.displayName, meta: group.meta });
      const named = await scim('get', `${GROUPS}/${group.id}?attributes=displayName,members.value`);
      expect({ etag: named.headers.etag, body: named.body }).toEqual({ etag: 'W/"1"', body: { schemas: group.schemas, id: group.id, displayName: group.displayName, members: [{ value: user }] } });
    });

    it('answers 404 in the SCIM error body for an unknown id, a text that is no uuid, or another organization\'s group', async () => {
      expect(scimError(await scim('get', `${GROUPS}/${randomUUID()}`))).toEqual(refused(404));
      expect(scimError(await scim('get', `${GROUPS}/nope`))).toEqual(refused(404));
      const other = await context.admin.createOrganization(`other-${randomUUID()}`);
      const otherKey = await context.admin.createApiKey(other.id, ['admin.v1.scim.provision']);
      const theirs = await context.http().post(GROUPS).set('Authorization', `Bearer ${otherKey.key}`).set('Content-Type', 'application/scim+json').send(JSON.stringify({ displayName: 'Theirs' }));
      expect(theirs.status).toBe(201);
      expect(scimError(await scim('get', `${GROUPS}/${theirs.body.id}`))).toEqual(refused(404));
    });

    it('lists by filter in SQL with exact totals: displayName (caseless), externalId, id, members.value, meta.created, and pages by startIndex and count', async () => {
      const tag = randomUUID().slice(0, 8);
      const user = await newUser();
      const a = await createGroup({ displayName: `Sales ${tag}`, externalId: `ext-${tag}`, members: [{ value: user }] });
      const b = await createGroup({ displayName: `Support ${tag}` });
      const list = async (query: string) => {
        const answer = await scim('get', `${GROUPS}?${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body.schemas).toEqual([LIST_SCHEMA]);
        return answer.body as { totalResults: number; startIndex: number; itemsPerPage: number; Resources: Body[] };
      };
      const ids = (page: { Resources: Body[] }) => page.Resources.map((resource) => resource.id);
      expect(ids(await list(`filter=${encodeURIComponent(`displayName eq "sales ${tag.toUpperCase()}"`)}`))).toEqual([a.id]);
      expect(ids(await list(`filter=${encodeURIComponent(`externalId eq "ext-${tag}"`)}`))).toEqual([a.id]);
      expect(ids(await list(`filter=${encodeURIComponent(`id eq "${b.id}"`)}`))).toEqual([b.id]);
      expect(ids(await list(`filter=${encodeURIComponent(`members.value eq "${user}"`)}`))).toEqual([a.id]);
      expect(ids(await list(`filter=${encodeURIComponent(`members[value eq "${user}"]`)}`))).toEqual([a.id]);
      expect(ids(await list(`filter=${encodeURIComponent(`id eq "${b.id}" and members.value eq "${user}"`)}`))).toEqual([]);
      expect(ids(await list(`filter=${encodeURIComponent(`DISPLAYNAME sw "s" and displayName ew "${tag}" and meta.created ge "2020-01-01T00:00:00Z"`)}`)).sort()).toEqual(
        [a.id, b.id].sort(),
      );
      expect(ids(await list(`filter=${encodeURIComponent(`displayName eq "nobody ${tag}"`)}`))).toEqual([]);

      const all = await list(`filter=${encodeURIComponent(`displayName ew "${tag}"`)}&startIndex=1&count=1`);
      expect({ total: all.totalResults, start: all.startIndex, per: all.itemsPerPage }).toEqual({ total: 2, start: 1, per: 1 });
      const second = await list(`filter=${encodeURIComponent(`displayName ew "${tag}"`)}&startIndex=2&count=1`);
      expect([...ids(all), ...ids(second)].sort()).toEqual([a.id, b.id].sort());
      const totalOnly = await list(`filter=${encodeURIComponent(`displayName ew "${tag}"`)}&count=0`);
      expect({ total: totalOnly.totalResults, resources: totalOnly.Resources }).toEqual({ total: 2, resources: [] });
      const withMembers = await list(`filter=${encodeURIComponent(`id eq "${a.id}"`)}`);
      expect(withMembers.Resources[0].members).toEqual([expect.objectContaining({ value: user })]);
      const withoutMembers = await list(`filter=${encodeURIComponent(`id eq "${a.id}"`)}&excludedAttributes=members`);
      expect(withoutMembers.Resources[0]).not.toHaveProperty('members');
    });

    it('refuses a filter that does not parse or names an attribute a Group cannot be filtered on with 400 invalidFilter', async () => {
      for (const filter of ['displayName eq', 'displayName xx "a"', '(displayName eq "a"', 'userName eq "a"', 'members.display eq "a"', 'displayName[value eq "a"]', 'meta.created gt "yesterday"']) {
        expect({ filter, refusal: scimError(await scim('get', `${GROUPS}?filter=${encodeURIComponent(filter)}`)) }).toEqual({ filter, refusal: refused(400, 'invalidFilter') });
      }
      expect(scimError(await scim('get', `${GROUPS}?count=many`))).toEqual(refused(400, 'invalidValue'));
    });
  });

  describe('change', () => {
    it('PATCH adds and removes members; adding a member again or removing a non-member is no error and changes nothing', async () => {
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const group = await newGroup({ members: [{ value: ann }] });
      const added = await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: bob }, { value: ann }] }));
      expect(added.status).toBe(200);
      expect(sorted((added.body.members as { value: string }[]).map((member) => member.value))).toEqual(sorted([ann, bob]));
      const annRevision = (await restUser(ann)).revision;
      expect((await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'remove', path: `members[value eq "${cid}"]` }, { op: 'add', path: 'members', value: [{ value: ann }] }))).status).toBe(200);
      expect((await restUser(ann)).revision).toBe(annRevision);
      expect(await memberIds(group.id)).toEqual(sorted([ann, bob]));
      expect(await actionsOf(group.id)).toEqual(['department.created', 'department.member_added', 'department.member_added']);
    });

    it('PATCH replace members sets the whole set; remove with path members removes all; the users see their departments change', async () => {
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const group = await newGroup({ members: [{ value: ann }, { value: bob }] });
      expect((await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'members', value: [{ value: bob }, { value: cid }] }))).status).toBe(200);
      expect(await memberIds(group.id)).toEqual(sorted([bob, cid]));
      expect((await restUser(ann)).department_ids).toEqual([]);
      expect((await restUser(cid)).department_ids).toEqual([group.id]);
      expect((await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'remove', path: 'members' }))).status).toBe(200);
      expect(await memberIds(group.id)).toEqual([]);
      const actions = (await auditOf(group.id)).map((event) => event.action);
      expect(actions.filter((action) => action === 'department.member_removed')).toHaveLength(3);
      expect(actions.filter((action) => action === 'department.member_added')).toHaveLength(3);
    });

    it('keeps the memberships\' rules: the first membership becomes primary, a removed primary gives way to the earliest remaining one, each in the audit event', async () => {
      const user = await newUser();
      const first = await newGroup({ members: [{ value: user }] });
      const second = await newGroup();
      await scim('patch', `${GROUPS}/${second.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: user }] }));
      const before = (await context.http().get(`/api/openapi/v1/users/${user}`).set('Authorization', bearer())).body;
      expect({ departments: before.department_ids, primary: before.primary_department_id, revision: before.revision }).toEqual({ departments: [first.id, second.id], primary: first.id, revision: 3 });
      await scim('patch', `${GROUPS}/${first.id}`, patchOp({ op: 'remove', path: `members[value eq "${user}"]` }));
      const after = (await context.http().get(`/api/openapi/v1/users/${user}`).set('Authorization', bearer())).body;
      expect({ departments: after.department_ids, primary: after.primary_department_id, revision: after.revision }).toEqual({ departments: [second.id], primary: second.id, revision: 4 });
      const events = (await auditOf(first.id)).sort((a, b) => a.action.localeCompare(b.action));
      expect(events.map((event) => [event.action, event.changes])).toEqual([
        ['department.created', expect.anything()],
        ['department.member_added', { user_id: { old: null, new: user }, primary_department_id: { old: null, new: first.id } }],
        ['department.member_removed', { user_id: { old: user, new: null }, primary_department_id: { old: first.id, new: second.id } }],
      ]);
    });

    it('PATCH replace displayName and externalId (path or path-less object), audited as department.updated; the version follows the revision', async () => {
      const group = await newGroup();
      const renamed = await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'displayName', value: 'Renamed' }, { op: 'replace', value: { externalId: 'ext-renamed' } }));
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ displayName: 'Renamed', externalId: 'ext-renamed', meta: { version: 'W/"2"' } });
      expect(renamed.headers.etag).toBe('W/"2"');
      expect((await restDepartment(group.id)).body).toMatchObject({ name: 'Renamed', external_id: 'ext-renamed', revision: 2 });
      const removed = await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'remove', path: 'externalId' }));
      expect(removed.body).not.toHaveProperty('externalId');
      const events = await auditOf(group.id);
      expect(events.map((event) => event.action).sort()).toEqual(['department.created', 'department.updated', 'department.updated']);
      expect(events.map((event) => event.changes)).toContainEqual({ name: { old: group.displayName, new: 'Renamed' }, external_id: { old: null, new: 'ext-renamed' } });
      expect(events.map((event) => event.changes)).toContainEqual({ external_id: { old: 'ext-renamed', new: null } });
    });

    it('PATCH of parentId moves the department with its subtree through the departments\' move; into its own subtree is 400 invalidValue', async () => {
      const [a, b] = [await newGroup(), await newGroup()];
      const child = await createGroup({ displayName: 'Leaf', [WORKSPACE]: { parentId: a.id } });
      const moved = await scim('patch', `${GROUPS}/${a.id}`, patchOp({ op: 'replace', path: `${WORKSPACE}:parentId`, value: b.id }));
      expect(moved.status).toBe(200);
      expect(moved.body[WORKSPACE]).toEqual({ parentId: b.id });
      const ancestors = await context.http().get(`/api/openapi/v1/departments/${child.id}/ancestors`).set('Authorization', bearer());
      expect(ancestors.body.items.map((department: { department_id: string }) => department.department_id)).toEqual([b.id, a.id]);
      expect(scimError(await scim('patch', `${GROUPS}/${b.id}`, patchOp({ op: 'replace', path: `${WORKSPACE}:parentId`, value: child.id })))).toEqual(refused(400, 'invalidValue'));
      const top = await scim('patch', `${GROUPS}/${a.id}`, patchOp({ op: 'replace', value: { [WORKSPACE]: { parentId: null } } }));
      expect(top.body).not.toHaveProperty(WORKSPACE);
      expect((await restDepartment(a.id)).body.parent_id).toBeNull();
    });

    it('PUT replaces displayName, externalId and members (adds and removes computed), keeping the parent it does not name', async () => {
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const parent = await newGroup();
      const group = await createGroup({ displayName: 'Before', externalId: 'put-before', members: [{ value: ann }, { value: bob }], [WORKSPACE]: { parentId: parent.id } });
      const put = await scim('put', `${GROUPS}/${group.id}`, { schemas: [GROUP_SCHEMA], id: group.id, displayName: 'After', members: [{ value: bob, display: 'bob' }, { value: cid }] });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id: group.id, displayName: 'After', [WORKSPACE]: { parentId: parent.id }, meta: { version: 'W/"2"' } });
      expect(put.body).not.toHaveProperty('externalId');
      expect(await memberIds(group.id)).toEqual(sorted([bob, cid]));
      expect(await actionsOf(group.id)).toEqual(
        ['department.created', 'department.member_added', 'department.member_added', 'department.updated', 'department.member_added', 'department.member_removed'].sort(),
      );
    });

    it('refuses bad PATCH bodies with 400 and the scimType, and changes nothing', async () => {
      const user = await newUser();
      const group = await newGroup({ members: [{ value: user }] });
      const cases: [unknown, string][] = [
        [patchOp({ op: 'replace', path: 'displayName[', value: 'x' }), 'invalidPath'],
        [patchOp({ op: 'replace', path: 'members[value eq', value: [] }), 'invalidPath'],
        [patchOp({ op: 'replace', path: 'title', value: 'x' }), 'invalidPath'],
        [patchOp({ op: 'remove', path: 'members[display eq "x"]' }), 'invalidPath'],
        [patchOp({ op: 'replace', path: 'displayName', value: 42 }), 'invalidValue'],
        [patchOp({ op: 'replace', path: 'displayName', value: ['x'] }), 'invalidValue'],
        [patchOp({ op: 'remove', path: 'displayName' }), 'invalidValue'],
        [patchOp({ op: 'add', path: 'members', value: [{ value: randomUUID() }] }), 'invalidValue'],
        [patchOp({ op: 'add', path: 'members', value: 'x' }), 'invalidValue'],
        [patchOp({ op: 'replace', path: 'id', value: randomUUID() }), 'mutability'],
        [patchOp({ op: 'remove' }), 'noTarget'],
        [patchOp({ op: 'jump', path: 'displayName', value: 'x' }), 'invalidSyntax'],
        [{ schemas: [GROUP_SCHEMA], Operations: [] }, 'invalidSyntax'],
        ['[', 'invalidSyntax'],
      ];
      for (const [body, scimType] of cases) {
        expect({ body, refusal: scimError(await scim('patch', `${GROUPS}/${group.id}`, body)) }).toEqual({ body, refusal: refused(400, scimType) });
      }
      expect(await memberIds(group.id)).toEqual([user]);
      expect((await scim('get', `${GROUPS}/${group.id}`)).body.meta.version).toBe('W/"1"');
    });

    it('If-Match with a stale version is 412 for PATCH, PUT and DELETE, and nothing changes; the current one or * lets the change through', async () => {
      const user = await newUser();
      const group = await newGroup();
      await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'displayName', value: `${group.displayName as string} 2` }));
      const stale = { 'If-Match': 'W/"1"' };
      expect(scimError(await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: user }] }), stale))).toEqual(refused(412));
      expect(scimError(await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'displayName', value: 'Stale' }), stale))).toEqual(refused(412));
      expect(scimError(await scim('put', `${GROUPS}/${group.id}`, { displayName: 'Stale' }, stale))).toEqual(refused(412));
      expect(scimError(await scim('delete', `${GROUPS}/${group.id}`, undefined, stale))).toEqual(refused(412));
      expect(await memberIds(group.id)).toEqual([]);
      expect((await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: user }] }), { 'If-Match': 'W/"2"' })).status).toBe(200);
      expect((await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'displayName', value: 'Fresh' }), { 'If-Match': '*' })).status).toBe(200);
    });

    it('refuses a member already in 50 departments with 400 invalidValue, the users\' limit', async () => {
      const user = await newUser();
      for (let index = 0; index < 50; index += 1) await newGroup({ members: [{ value: user }] });
      const group = await newGroup();
      expect(scimError(await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: user }] })))).toEqual(refused(400, 'invalidValue'));
      expect(await memberIds(group.id)).toEqual([]);
      expect((await restUser(user)).department_ids).toHaveLength(50);
    });

    it('two PATCHes adding different members at once both land (no lost update)', async () => {
      const users = [await newUser(), await newUser(), await newUser(), await newUser()];
      const group = await newGroup();
      const answers = await Promise.all(users.map((user) => scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: user }] }))));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(await memberIds(group.id)).toEqual(sorted(users));
    });

    it('changes of overlapping members in any order, beside REST member writes and a group delete, all end without a deadlock or a lost membership', async () => {
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const [g1, g2, g3, doomed] = [await newGroup(), await newGroup(), await newGroup(), await newGroup({ members: [{ value: ann }, { value: bob }] })];
      const answers = await Promise.all([
        scim('patch', `${GROUPS}/${g1.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: ann }, { value: bob }, { value: cid }] })),
        scim('patch', `${GROUPS}/${g2.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: cid }, { value: bob }, { value: ann }] })),
        scim('put', `${GROUPS}/${g3.id}`, { displayName: g3.displayName, members: [{ value: bob }, { value: ann }] }),
        scim('delete', `${GROUPS}/${doomed.id}`),
        context.http().put(`/api/openapi/v1/departments/${g3.id}/members/${cid}`).set('Authorization', bearer()),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 204, 201]);
      expect(await memberIds(g1.id)).toEqual(sorted([ann, bob, cid]));
      expect(await memberIds(g2.id)).toEqual(sorted([ann, bob, cid]));
      expect((await memberIds(g3.id)).filter((id) => id !== cid)).toEqual(sorted([ann, bob]));
      expect(sorted((await restUser(ann)).department_ids)).toEqual(sorted([g1.id, g2.id, g3.id]));
    });

    it('sees REST changes at once: a rename, a member added through the department\'s members route', async () => {
      const user = await newUser();
      const group = await newGroup();
      const rename = await context.http().patch(`/api/openapi/v1/departments/${group.id}`).set('Authorization', bearer()).send({ name: 'Renamed over REST' });
      expect(rename.status).toBe(200);
      expect((await context.http().put(`/api/openapi/v1/departments/${group.id}/members/${user}`).set('Authorization', bearer())).status).toBe(201);
      const read = await scim('get', `${GROUPS}/${group.id}`);
      expect(read.body).toMatchObject({ displayName: 'Renamed over REST', members: [expect.objectContaining({ value: user })], meta: { version: 'W/"2"' } });
    });
  });

  describe('audit and webhooks', () => {
    it('queues a webhook delivery for every event of a SCIM change, one per membership of a many-member change', async () => {
      const endpoint = await context.http().post('/api/openapi/v1/webhook-endpoints').set('Authorization', bearer())
        .send({ url: 'http://127.0.0.1:9/hook', event_types: ['department.created', 'department.updated', 'department.deleted', 'department.member_added', 'department.member_removed'] });
      expect(endpoint.status).toBe(201);
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const group = await newGroup({ members: [{ value: ann }, { value: bob }, { value: cid }] });
      await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'Remove', path: 'members', value: [{ value: ann }, { value: bob }] }, { op: 'Replace', path: 'displayName', value: 'Hooked' }));
      await scim('delete', `${GROUPS}/${group.id}`);
      const events = await auditOf(group.id);
      expect(events.map((event) => event.action).sort()).toEqual(
        ['department.created', ...Array(3).fill('department.member_added'), 'department.updated', ...Array(3).fill('department.member_removed'), 'department.deleted'].sort(),
      );
      expect(new Set(events.map((event) => event.event_id)).size).toBe(events.length);
      const deliveries = await context.http().get(`/api/openapi/v1/webhook-endpoints/${endpoint.body.id}/deliveries`).set('Authorization', bearer());
      expect((deliveries.body.items as { event_id: string }[]).map((delivery) => delivery.event_id).sort()).toEqual(
        events.map((event) => event.event_id).sort(),
      );
      await context.http().delete(`/api/openapi/v1/webhook-endpoints/${endpoint.body.id}`).set('Authorization', bearer());
    });
  });

  describe('delete', () => {
    it('removes the memberships and deletes the department in one go (member_removed events, department.deleted), then 404 to every method', async () => {
      const [ann, bob] = [await newUser(), await newUser()];
      const group = await newGroup({ members: [{ value: ann }, { value: bob }] });
      const answer = await scim('delete', `${GROUPS}/${group.id}`);
      expect({ status: answer.status, body: answer.text }).toEqual({ status: 204, body: '' });
      expect((await restUser(ann)).department_ids).toEqual([]);
      expect((await restDepartment(group.id)).status).toBe(404);
      expect(await actionsOf(group.id)).toEqual(
        ['department.created', 'department.member_added', 'department.member_added', 'department.member_removed', 'department.member_removed', 'department.deleted'].sort(),
      );
      expect(scimError(await scim('get', `${GROUPS}/${group.id}`))).toEqual(refused(404));
      expect(scimError(await scim('patch', `${GROUPS}/${group.id}`, patchOp({ op: 'replace', path: 'displayName', value: 'x' })))).toEqual(refused(404));
      expect(scimError(await scim('put', `${GROUPS}/${group.id}`, { displayName: 'x' }))).toEqual(refused(404));
      expect(scimError(await scim('delete', `${GROUPS}/${group.id}`))).toEqual(refused(404));
      // Its name is free again.
      await createGroup({ displayName: group.displayName });
    });

    it('refuses (409) a group with child groups, and deletes nothing', async () => {
      const user = await newUser();
      const parent = await newGroup({ members: [{ value: user }] });
      await createGroup({ displayName: 'Kid', [WORKSPACE]: { parentId: parent.id } });
      expect(scimError(await scim('delete', `${GROUPS}/${parent.id}`))).toEqual(refused(409));
      expect(await memberIds(parent.id)).toEqual([user]);
    });
  });

  describe('a large group', () => {
    // A statement over ten thousand members takes seconds on the embedded database under a loaded test
    // run: the database's own deadlines are raised, for its statements and its transactions.
    const deadlines = { DATABASE_STATEMENT_TIMEOUT_MS: 60_000, TRANSACTION_TIMEOUT_MS: 60_000 };
    const large = useTestApp({ listen: true, overrides: deadlines, database: useTestDatabase(testConfig(deadlines)) });
    const call = (method: 'get' | 'patch' | 'delete', path: string, body?: unknown) => {
      const sent = request(large.baseUrl)[method](path).set('Authorization', large.tenant.bearer);
      return body === undefined ? sent : sent.set('Content-Type', 'application/scim+json').send(JSON.stringify(body));
    };

    it(`lists at most ${MAX_MEMBERS_PER_ANSWER} members an answer: past it a read is 400 tooMany and a write answers without them; membership by filter, adds in one PATCH, and the delete all work`, async () => {
      const org = large.tenant.organizationId;
      const group = await request(large.baseUrl).post(GROUPS).set('Authorization', large.tenant.bearer).set('Content-Type', 'application/scim+json').send(JSON.stringify({ displayName: 'Large' }));
      expect(group.status).toBe(201);
      const id = group.body.id as string;
      // The members made in three statements: over HTTP they would take minutes.
      const sql = large.database.sql.queries;
      await sql.execute(Prisma.sql`
        INSERT INTO users (id, organization_id, user_name, user_name_key)
        SELECT gen_random_uuid(), ${org}::uuid, 'bulk-' || g, 'bulk-' || g FROM generate_series(1, ${MAX_MEMBERS_PER_ANSWER + 1}) AS g`);
      const users = (await sql.query<{ id: string }>(Prisma.sql`SELECT id FROM users WHERE organization_id = ${org}::uuid ORDER BY user_name`)).map((row) => row.id);
      // One past the bound in all: a thousand of them added by SCIM.
      const [seeded, added] = [users.slice(0, MAX_MEMBERS_PER_ANSWER + 1 - 1000), users.slice(MAX_MEMBERS_PER_ANSWER + 1 - 1000)];
      await sql.execute(Prisma.sql`
        INSERT INTO department_members (organization_id, department_id, user_id) SELECT ${org}::uuid, ${id}::uuid, u FROM unnest(${seeded}::uuid[]) AS u`);
      await sql.execute(Prisma.sql`UPDATE users SET primary_department_id = ${id}::uuid WHERE organization_id = ${org}::uuid AND id = ANY (${seeded}::uuid[])`);

      const add = await call('patch', `${GROUPS}/${id}`, patchOp({ op: 'Add', path: 'members', value: added.map((value) => ({ value })) }));
      expect({ status: add.status, members: add.body.members }).toEqual({ status: 200, members: undefined });
      expect(scimError(await call('get', `${GROUPS}/${id}`))).toEqual(refused(400, 'tooMany'));
      expect(scimError(await call('get', `${GROUPS}?filter=${encodeURIComponent(`id eq "${id}"`)}`))).toEqual(refused(400, 'tooMany'));
      expect((await call('get', `${GROUPS}/${id}?excludedAttributes=members`)).status).toBe(200);
      const lookup = await call('get', `${GROUPS}?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${id}" and members.value eq "${added[500]}"`)}`);
      expect(lookup.body.totalResults).toBe(1);

      const removed = await call('patch', `${GROUPS}/${id}`, patchOp({ op: 'remove', path: `members[value eq "${users[0]}"]` }, { op: 'Replace', path: 'displayName', value: 'Large renamed' }));
      // Down to the bound: the answer lists them again.
      expect({ status: removed.status, name: removed.body.displayName, members: (removed.body.members as unknown[]).length }).toEqual({ status: 200, name: 'Large renamed', members: MAX_MEMBERS_PER_ANSWER });

      const deleted = await call('delete', `${GROUPS}/${id}`);
      expect({ status: deleted.status, body: deleted.text }).toEqual({ status: 204, body: '' });
      const [left] = await sql.query<{ memberships: bigint; primaries: bigint }>(Prisma.sql`
        SELECT (SELECT count(*) FROM department_members WHERE organization_id = ${org}::uuid) AS memberships,
          (SELECT count(*) FROM users WHERE organization_id = ${org}::uuid AND primary_department_id IS NOT NULL) AS primaries`);
      expect({ memberships: Number(left.memberships), primaries: Number(left.primaries) }).toEqual({ memberships: 0, primaries: 0 });
    }, 180_000);
  });

  describe('what the providers send', () => {
    it('Microsoft Entra ID: create, look up by displayName without members, Add members, Remove a member, Replace displayName, DELETE', async () => {
      const [ann, bob] = [await newUser(), await newUser()];
      const name = `Entra ${randomUUID().slice(0, 8)}`;
      const created = await typed.POST('/scim/v2/Groups', { body: { externalId: randomUUID(), schemas: [GROUP_SCHEMA], displayName: name, meta: { resourceType: 'Group' } } });
      expect(created.response.status).toBe(201);
      const id = created.data!.id;

      const lookup = await typed.GET('/scim/v2/Groups', { params: { query: { excludedAttributes: 'members', filter: `displayName eq "${name}"` } } });
      expect(lookup.response.status).toBe(200);
      expect(lookup.data).toEqual({ schemas: [LIST_SCHEMA], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [expect.objectContaining({ id, displayName: name })] });
      expect(lookup.data!.Resources[0]).not.toHaveProperty('members');
      const one = await typed.GET('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id }, query: { excludedAttributes: 'members' } } });
      expect({ status: one.response.status, etag: one.response.headers.get('ETag') }).toEqual({ status: 200, etag: 'W/"1"' });

      const patch = (body: Body) => typed.PATCH('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id } }, body });
      const add = await patch({ schemas: [PATCH_OP], Operations: [{ name: 'addMember', op: 'Add', path: 'members', value: [{ $ref: null, value: ann }, { $ref: null, value: bob }] }] });
      expect(add.response.status).toBe(200);
      expect(await memberIds(id)).toEqual(sorted([ann, bob]));
      const member = await typed.GET('/scim/v2/Groups', { params: { query: { excludedAttributes: 'members', filter: `id eq "${id}" and members.value eq "${ann}"` } } });
      expect(member.data!.totalResults).toBe(1);

      expect((await patch({ schemas: [PATCH_OP], Operations: [{ name: 'removeMember', op: 'Remove', path: 'members', value: [{ $ref: null, value: ann }] }] })).response.status).toBe(200);
      expect((await patch(patchOp({ op: 'Remove', path: `members[value eq "${bob}"]` }))).response.status).toBe(200);
      expect(await memberIds(id)).toEqual([]);

      const renamed = await patch(patchOp({ op: 'Replace', path: 'displayName', value: `${name} renamed` }, { op: 'Replace', path: 'externalId', value: 'entra-ext' }));
      expect(renamed.data).toMatchObject({ displayName: `${name} renamed`, externalId: 'entra-ext' });
      expect((await typed.DELETE('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id } } })).response.status).toBe(204);
      expect((await typed.GET('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id } } })).response.status).toBe(404);
      expect(await actionsOf(id)).toEqual(
        [
          'department.created',
          'department.member_added',
          'department.member_added',
          'department.member_removed',
          'department.member_removed',
          'department.updated',
          'department.deleted',
        ].sort(),
      );
    });

    it('Okta: connection test, Push Groups (POST with members, rename by path-less replace with the id, replace/add/remove members), and PUT of older integrations', async () => {
      expect((await typed.GET('/scim/v2/Groups', { params: { query: { startIndex: 1, count: 100 } } })).response.status).toBe(200);
      const [ann, bob, cid] = [await newUser(), await newUser(), await newUser()];
      const name = `Okta ${randomUUID().slice(0, 8)}`;
      const pushed = await typed.POST('/scim/v2/Groups', { body: { schemas: [GROUP_SCHEMA], displayName: name, members: [{ value: ann, display: 'ann@example.com' }] } });
      expect(pushed.response.status).toBe(201);
      const id = pushed.data!.id;
      expect((await typed.GET('/scim/v2/Groups', { params: { query: { filter: `displayName eq "${name}"` } } })).data!.totalResults).toBe(1);

      const patch = (body: Body) => typed.PATCH('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id } }, body });
      const rename = await patch(patchOp({ op: 'replace', value: { id, displayName: `${name} v2` } }));
      expect(rename.data!.displayName).toBe(`${name} v2`);
      expect((await patch(patchOp({ op: 'replace', path: 'members', value: [{ value: bob, display: 'bob@example.com' }] }))).response.status).toBe(200);
      expect(await memberIds(id)).toEqual([bob]);
      expect((await patch(patchOp({ op: 'add', path: 'members', value: [{ value: cid, display: 'cid@example.com' }] }))).response.status).toBe(200);
      expect((await patch(patchOp({ op: 'remove', path: `members[value eq "${bob}"]` }))).response.status).toBe(200);
      expect(await memberIds(id)).toEqual([cid]);

      const put = await typed.PUT('/scim/v2/Groups/{groupId}', {
        params: { path: { groupId: id } },
        body: { schemas: [GROUP_SCHEMA], id, displayName: `${name} v3`, members: [{ value: ann, display: 'ann' }, { value: cid, display: 'cid' }] },
      });
      expect(put.response.status).toBe(200);
      expect(await memberIds(id)).toEqual(sorted([ann, cid]));
      expect((await typed.DELETE('/scim/v2/Groups/{groupId}', { params: { path: { groupId: id } } })).response.status).toBe(204);
    });
  });
});
