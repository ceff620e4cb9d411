import { Client } from 'pg';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { createApiKey, createTenant, startTestApp, testDatabaseUrl, useTwoInstances, type TestApp, type TestTenant } from './support/test-app';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

const PATH = '/api/openapi/v1/departments';
const onPostgres = testDatabaseUrl() !== undefined;

let keySequence = 0;
const newKey = () => `test-key-${process.pid}-${Date.now()}-${++keySequence}`;

describe('POST /api/openapi/v1/departments', () => {
  const instances = useTwoInstances();
  let database: Database;
  let app: TestApp;
  let otherApp: TestApp;

  beforeAll(() => ({ database, app, otherApp } = instances));

  const create = (tenant: TestTenant, body: unknown, key: string = newKey(), via: TestApp = app) =>
    via.http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send(body as object);

  const departmentsOf = (tenant: TestTenant) =>
    database.prisma.department.findMany({ where: { organizationId: tenant.organizationId }, orderBy: { createdAt: 'asc' } });

  describe('creating', () => {
    it('returns 201 with the department, order as a JSON number and the name trimmed', async () => {
      const tenant = await createTenant(database);
      const response = await create(tenant, { name: '  Research  ', external_id: 'hr-1' }).expect(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        department_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        external_id: 'hr-1',
        name: 'Research',
        order: 1,
        parent_id: null,
        revision: 1,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: response.body.created_at,
      });
      expect(response.text).toContain('"order":1');
      const [stored] = await departmentsOf(tenant);
      expect({ id: stored.id, name: stored.name, order: stored.order }).toEqual({ id: response.body.department_id, name: 'Research', order: 1n });
    });

    it('gives each new sibling the next order and starts at 1 under a new parent', async () => {
      const tenant = await createTenant(database);
      const first = (await create(tenant, { name: 'A' }).expect(201)).body;
      const second = (await create(tenant, { name: 'B', parent_id: null }).expect(201)).body;
      const child = (await create(tenant, { name: 'A', parent_id: first.department_id }).expect(201)).body;
      const grandchild = (await create(tenant, { name: 'A', parent_id: child.department_id }).expect(201)).body;
      const secondChild = (await create(tenant, { name: 'B', parent_id: first.department_id }).expect(201)).body;
      expect([first.order, second.order, child.order, grandchild.order, secondChild.order]).toEqual([1, 2, 1, 1, 2]);
      expect(child).toMatchObject({ parent_id: first.department_id, external_id: null });
    });

    it('returns 401 without a key and 403 for a key without admin.v1.user-directory.manage', async () => {
      const tenant = await createTenant(database);
      const unauthenticated = await app.http().post(PATH).set('Idempotency-Key', newKey()).send({ name: 'X' });
      expectErrorBody(unauthenticated, 401, 'UNAUTHENTICATED', 'unauthorized');
      const readOnly = await createApiKey(database, tenant.organizationId, [QuotaScope.Read, ExpertSuitesScope.Manage]);
      const forbidden = await create(readOnly, { name: 'X' });
      expectErrorBody(forbidden, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      expect(forbidden.body.detail).toContain(DirectoryScope.Manage);
      expect(await departmentsOf(tenant)).toHaveLength(0);
    });
  });

  describe('validation (400 VALIDATION_FAILED naming the first failing field)', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(database);
    });

    const fourByteChar = '😀'; // one code point, two UTF-16 units, four UTF-8 bytes

    it('accepts a name of exactly 255 code points of multi-byte characters', async () => {
      const name = fourByteChar.repeat(255);
      const response = await create(tenant, { name }).expect(201);
      expect(response.body.name).toBe(name);
    });

    it('refuses a name of 256 code points with too_long and the name cut to 255 as suggestion', async () => {
      const response = await create(tenant, { name: 'é'.repeat(256) });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'name', reason: 'too_long', suggestion: 'é'.repeat(255) });
    });

    it('counts the name after trimming', async () => {
      await create(tenant, { name: `  ${'ß'.repeat(255)}  ` }).expect(201);
    });

    it('accepts an external_id of 512 code points and refuses 513', async () => {
      await create(tenant, { name: 'ext-512', external_id: fourByteChar.repeat(512) }).expect(201);
      const response = await create(tenant, { name: 'ext-513', external_id: fourByteChar.repeat(513) });
      expect(response.body.details).toEqual({ field: 'external_id', reason: 'too_long', suggestion: fourByteChar.repeat(512) });
    });

    it.each([
      ['a missing name', {}, { field: 'name', reason: 'required' }],
      ['a null name', { name: null }, { field: 'name', reason: 'required' }],
      ['a name that is a number', { name: 5 }, { field: 'name', reason: 'invalid_type' }],
      ['an empty name', { name: '' }, { field: 'name', reason: 'must_not_be_blank' }],
      ['a name of white space', { name: ' \t\n ' }, { field: 'name', reason: 'must_not_be_blank' }],
      ['an external_id that is a number', { name: 'n', external_id: 42 }, { field: 'external_id', reason: 'invalid_type' }],
      ['an empty external_id', { name: 'n', external_id: '' }, { field: 'external_id', reason: 'must_not_be_blank' }],
      ['an external_id with surrounding white space', { name: 'n', external_id: ' hr-9 ' }, { field: 'external_id', reason: 'invalid_format', suggestion: 'hr-9' }],
      ['a parent_id that is not a uuid', { name: 'n', parent_id: 'not-a-uuid' }, { field: 'parent_id', reason: 'invalid_format' }],
      [
        'a parent_id with surrounding white space',
        { name: 'n', parent_id: ' A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11 ' },
        { field: 'parent_id', reason: 'invalid_format', suggestion: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' },
      ],
      ['a name of zero-width and bidi characters only', { name: '\u200b\u200f\u202e\u2066\ufeff' }, { field: 'name', reason: 'must_not_be_blank' }],
      ['a parent_id that is a number', { name: 'n', parent_id: 7 }, { field: 'parent_id', reason: 'invalid_type' }],
      ['an unknown field', { name: 'n', order: 3 }, { field: 'order', reason: 'unknown_field' }],
      ['several bad fields (the first in spec order is named)', { parent_id: 'x', name: '', external_id: 1 }, { field: 'external_id', reason: 'invalid_type' }],
    ])('refuses %s', async (_case, body, details) => {
      const response = await create(tenant, body);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual(details);
    });

    it('accepts a parent_id in upper case, and stores and returns it lower-case', async () => {
      const parent = (await create(tenant, { name: 'Upper parent' }).expect(201)).body;
      const response = await create(tenant, { name: 'Child of upper', parent_id: parent.department_id.toUpperCase() }).expect(201);
      expect(response.body.parent_id).toBe(parent.department_id);
      const stored = await database.prisma.department.findUniqueOrThrow({ where: { id: response.body.department_id } });
      expect(stored.parentId).toBe(parent.department_id);
    });

    it('refuses a JSON body that is not an object', async () => {
      const response = await create(tenant, ['name']);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
    });
  });

  describe('rules', () => {
    it('returns 422 PARENT_NOT_FOUND for an unknown parent', async () => {
      const tenant = await createTenant(database);
      const response = await create(tenant, { name: 'Orphan', parent_id: '00000000-0000-4000-8000-000000000000' });
      expectErrorBody(response, 422, 'PARENT_NOT_FOUND', 'unprocessable_entity');
      expect(response.body.details).toEqual({ field: 'parent_id', reason: 'not_found' });
      expect(await departmentsOf(tenant)).toHaveLength(0);
    });

    it('answers another organization’s parent exactly like an unknown one', async () => {
      const owner = await createTenant(database);
      const intruder = await createTenant(database);
      const parent = (await create(owner, { name: 'Private' }).expect(201)).body;
      const foreign = await create(intruder, { name: 'Child', parent_id: parent.department_id });
      const unknown = await create(intruder, { name: 'Child', parent_id: '00000000-0000-4000-8000-000000000000' });
      expectErrorBody(foreign, 422, 'PARENT_NOT_FOUND', 'unprocessable_entity');
      expect(foreign.body).toEqual(unknown.body);
      expect(await departmentsOf(intruder)).toHaveLength(0);
    });

    it('returns 409 DEPARTMENT_NAME_CONFLICT for a sibling name differing only in case, top-level and nested', async () => {
      const tenant = await createTenant(database);
      const parent = (await create(tenant, { name: 'Engineering' }).expect(201)).body;
      expectErrorBody(await create(tenant, { name: 'ENGINEERING' }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      await create(tenant, { name: 'Platform', parent_id: parent.department_id }).expect(201);
      expectErrorBody(await create(tenant, { name: ' platform ', parent_id: parent.department_id }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      expect(await departmentsOf(tenant)).toHaveLength(2);
    });

    it('allows the same name under different parents and in different organizations', async () => {
      const tenant = await createTenant(database);
      const other = await createTenant(database);
      const a = (await create(tenant, { name: 'A' }).expect(201)).body;
      const b = (await create(tenant, { name: 'B' }).expect(201)).body;
      await create(tenant, { name: 'Sales', parent_id: a.department_id }).expect(201);
      await create(tenant, { name: 'Sales', parent_id: b.department_id }).expect(201);
      await create(tenant, { name: 'Sales' }).expect(201);
      await create(other, { name: 'Sales' }).expect(201);
    });

    it('returns 409 EXTERNAL_ID_CONFLICT for an external_id used anywhere in the organization, but not across organizations', async () => {
      const tenant = await createTenant(database);
      const other = await createTenant(database);
      const parent = (await create(tenant, { name: 'Root', external_id: 'ext-1' }).expect(201)).body;
      const response = await create(tenant, { name: 'Child', parent_id: parent.department_id, external_id: 'ext-1' });
      expectErrorBody(response, 409, 'EXTERNAL_ID_CONFLICT', 'conflict');
      await create(other, { name: 'Root', external_id: 'ext-1' }).expect(201);
      await create(tenant, { name: 'No external id 1' }).expect(201);
      await create(tenant, { name: 'No external id 2' }).expect(201);
    });
  });

  describe('idempotency', () => {
    it('returns 400 IDEMPOTENCY_KEY_MISSING without the header', async () => {
      const tenant = await createTenant(database);
      for (const request of [
        app.http().post(PATH).set('Authorization', tenant.bearer).send({ name: 'X' }),
        app.http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', '').send({ name: 'X' }),
      ]) {
        const response = await request;
        expectErrorBody(response, 400, 'IDEMPOTENCY_KEY_MISSING', 'bad_request');
        expect(response.body.details).toEqual({ field: 'Idempotency-Key', reason: 'required' });
      }
      expect(await departmentsOf(tenant)).toHaveLength(0);
    });

    it.each([
      ['256 characters', 'k'.repeat(256)],
      ['a tab', 'key\twith-tab'],
      ['a non-ASCII character', 'cl\u00e9'],
    ])('returns 400 VALIDATION_FAILED invalid_format for a key with %s', async (_case, key) => {
      const tenant = await createTenant(database);
      const response = await create(tenant, { name: 'X' }, key);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'Idempotency-Key', reason: 'invalid_format' });
    });

    it('accepts a key of 255 printable ASCII characters including spaces and symbols', async () => {
      const tenant = await createTenant(database);
      const key = ` !"#$%&'()*+,-./09:;<=>?@AZ[\\]^_\`az{|}~`.padEnd(255, 'x');
      await create(tenant, { name: 'X' }, key).expect(201);
      await create(tenant, { name: 'X' }, key).expect(201).expect('Idempotent-Replayed', 'true');
    });

    it('replays the stored response byte for byte, creating exactly one department', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const first = await create(tenant, { name: 'Finance', external_id: 'fin' }, key).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const replay = await create(tenant, { name: 'Finance', external_id: 'fin' }, key).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(replay.text).toBe(first.text);
      expect(replay.body.department_id).toBe(first.body.department_id);
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('replays from another app instance and regardless of the key order of the body', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const first = await app
        .http()
        .post(PATH)
        .set('Authorization', tenant.bearer)
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/json')
        .send('{"name":"Ops","external_id":"ops","parent_id":null}')
        .expect(201);
      const reordered = await otherApp
        .http()
        .post(PATH)
        .set('Authorization', tenant.bearer)
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/json')
        .send('{ "parent_id": null, "external_id": "ops", "name": "Ops" }')
        .expect(201);
      expect(reordered.headers['idempotent-replayed']).toBe('true');
      expect(reordered.text).toBe(first.text);
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('returns 422 IDEMPOTENCY_KEY_REUSED for the same key with a different body, and changes nothing', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      await create(tenant, { name: 'Legal' }, key).expect(201);
      for (const body of [{ name: 'Legal2' }, { name: 'Legal', external_id: 'x' }, { name: 'Legal', parent_id: null }]) {
        expectErrorBody(await create(tenant, body, key), 422, 'IDEMPOTENCY_KEY_REUSED', 'unprocessable_entity');
      }
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('scopes keys to the API key: the same key from another API key is a new request', async () => {
      const tenant = await createTenant(database);
      const second = await createApiKey(database, tenant.organizationId, [DirectoryScope.Manage]);
      const key = newKey();
      const a = await create(tenant, { name: 'Shared key A' }, key).expect(201);
      const b = await create(second, { name: 'Shared key B' }, key).expect(201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.body.department_id).not.toBe(a.body.department_id);
      expect(await departmentsOf(tenant)).toHaveLength(2);
    });

    it('does not store failures: a retry with the same key runs again', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      await create(tenant, { name: 'Taken' }).expect(201);
      expectErrorBody(await create(tenant, { name: 'taken' }, key), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      expectErrorBody(await create(tenant, { name: '' }, key), 400, 'VALIDATION_FAILED', 'bad_request');
      expectErrorBody(await create(tenant, { name: 'x', parent_id: '00000000-0000-4000-8000-000000000000' }, key), 422, 'PARENT_NOT_FOUND', 'unprocessable_entity');
      expect(await database.prisma.idempotencyRecord.count({ where: { apiKeyId: tenant.apiKeyId } })).toBe(1);
      const success = await create(tenant, { name: 'Free' }, key).expect(201);
      expect(success.headers['idempotent-replayed']).toBeUndefined();
    });

    it('stores the record with the configured retention and the exact response text', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const response = await create(tenant, { name: 'Kept' }, key).expect(201);
      const record = await database.prisma.idempotencyRecord.findUniqueOrThrow({ where: { apiKeyId_key: { apiKeyId: tenant.apiKeyId, key } } });
      expect(record.statusCode).toBe(201);
      expect(record.responseBody).toBe(response.text);
      const retentionMs = record.expiresAt.getTime() - record.createdAt.getTime();
      expect(Math.abs(retentionMs - 24 * 3600 * 1000)).toBeLessThan(60_000);

      const shortLived = await startTestApp(database, { IDEMPOTENCY_TTL_SECONDS: 120 });
      try {
        const shortKey = newKey();
        await create(tenant, { name: 'Kept briefly' }, shortKey, shortLived).expect(201);
        const short = await database.prisma.idempotencyRecord.findUniqueOrThrow({ where: { apiKeyId_key: { apiKeyId: tenant.apiKeyId, key: shortKey } } });
        expect(Math.abs(short.expiresAt.getTime() - short.createdAt.getTime() - 120_000)).toBeLessThan(60_000);
      } finally {
        await shortLived.close();
      }
    });

    it('forgets an expired key: it can be used again, even with a different body', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const first = (await create(tenant, { name: 'Old' }, key).expect(201)).body;
      await database.prisma.idempotencyRecord.updateMany({ where: { apiKeyId: tenant.apiKeyId, key }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const again = await create(tenant, { name: 'New' }, key).expect(201);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(again.body.department_id).not.toBe(first.department_id);
      const replay = await create(tenant, { name: 'New' }, key).expect(201);
      expect(replay.text).toBe(again.text);
    });

    /**
     * Another session's open transaction holding the key's record uncommitted, as a request still
     * being processed holds it (its claim); `end` commits or rolls it back.
     */
    async function holdKey(tenant: TestTenant, key: string, statusCode: number): Promise<{ end(how: 'COMMIT' | 'ROLLBACK'): Promise<void> }> {
      const session = new Client({ connectionString: testDatabaseUrl() });
      await session.connect();
      await session.query('BEGIN');
      await session.query(
        `INSERT INTO idempotency_records (id, api_key_id, key, fingerprint, status_code, response_body, created_at, expires_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, '{}', now(), now() + interval '1 hour')`,
        [tenant.apiKeyId, key, 'f'.repeat(64), statusCode],
      );
      return {
        async end(how) {
          await session.query(how);
          await session.end();
        },
      };
    }

    async function untilAStatementWaitsForALock(): Promise<void> {
      const observer = new Client({ connectionString: testDatabaseUrl() });
      await observer.connect();
      try {
        for (let attempt = 0; attempt < 500; attempt++) {
          const { rows } = await observer.query(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
          if (rows[0].waiting > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error('No statement came to wait for a lock');
      } finally {
        await observer.end();
      }
    }

    (onPostgres ? it : it.skip)('returns 409 IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After while the key is held (PostgreSQL)', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const holder = await holdKey(tenant, key, 0);
      let held: import('supertest').Response;
      try {
        held = await create(tenant, { name: 'Busy' }, key);
      } finally {
        await holder.end('ROLLBACK');
      }
      expectErrorBody(held, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'conflict');
      expect(held.headers['retry-after']).toBe('1');
      expect(await departmentsOf(tenant)).toHaveLength(0);
      await create(tenant, { name: 'Busy' }, key).expect(201);
    });

    (onPostgres ? it : it.skip)('answers from the record a request in progress stores while this one waits for the key (PostgreSQL)', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const holder = await holdKey(tenant, key, 201);
      const patient = await startTestApp(database, { IDEMPOTENCY_CLAIM_WAIT_MS: 10_000 });
      try {
        const waiting = create(tenant, { name: 'Late' }, key, patient).then((response) => response);
        await untilAStatementWaitsForALock();
        await holder.end('COMMIT');
        // The stored record is of another request body, so the waiting request answers 422 from it.
        expectErrorBody(await waiting, 422, 'IDEMPOTENCY_KEY_REUSED', 'unprocessable_entity');
      } finally {
        await patient.close();
      }
      expect(await departmentsOf(tenant)).toHaveLength(0);
    });
  });

  describe('concurrency (two app instances on one database)', () => {
    const spread = (count: number, send: (via: TestApp, index: number) => Promise<import('supertest').Response>) =>
      Promise.all(Array.from({ length: count }, (_, index) => send(index % 2 === 0 ? app : otherApp, index)));

    it('20 identical requests with one key create exactly one department; every answer is the 201 or 409 in progress', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const responses = await spread(20, (via) => create(tenant, { name: 'Race', external_id: 'race' }, key, via));
      const created = responses.filter((response) => response.status === 201);
      const inProgress = responses.filter((response) => response.status === 409);
      expect(created.length + inProgress.length).toBe(20);
      expect(created.length).toBeGreaterThan(0);
      expect(new Set(created.map((response) => response.text)).size).toBe(1);
      expect(created.filter((response) => response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
      for (const response of inProgress) {
        expectErrorBody(response, 409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'conflict');
        expect(response.headers['retry-after']).toBe('1');
      }
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('20 concurrent retries of a completed request are all replayed: none waits for or fails on the key', async () => {
      const tenant = await createTenant(database);
      const key = newKey();
      const first = await create(tenant, { name: 'Done', external_id: 'done' }, key).expect(201);
      const retries = await spread(20, (via) => create(tenant, { external_id: 'done', name: 'Done' }, key, via));
      for (const retry of retries) {
        expect(retry.status).toBe(201);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(retry.text).toBe(first.text);
      }
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('20 requests with different keys and one name create one department; the others get 409 DEPARTMENT_NAME_CONFLICT', async () => {
      const tenant = await createTenant(database);
      const responses = await spread(20, (via, index) => create(tenant, { name: index % 2 ? 'Same Name' : 'same name' }, newKey(), via));
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      const conflicts = responses.filter((response) => response.status !== 201);
      expect(conflicts).toHaveLength(19);
      for (const response of conflicts) expectErrorBody(response, 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
      expect(await departmentsOf(tenant)).toHaveLength(1);
    });

    it('20 requests with one external_id and different names create one department; the others get 409 EXTERNAL_ID_CONFLICT', async () => {
      const tenant = await createTenant(database);
      const parents = [(await create(tenant, { name: 'P1' }).expect(201)).body, (await create(tenant, { name: 'P2' }).expect(201)).body];
      const responses = await spread(20, (via, index) =>
        create(tenant, { name: `Dept ${index}`, external_id: 'shared', parent_id: parents[index % 2].department_id }, newKey(), via),
      );
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 201)) expectErrorBody(response, 409, 'EXTERNAL_ID_CONFLICT', 'conflict');
      expect(await departmentsOf(tenant)).toHaveLength(3);
    });

    it('20 siblings created at once get the distinct orders 1 to 20', async () => {
      const tenant = await createTenant(database);
      const responses = await spread(20, (via, index) => create(tenant, { name: `Sibling ${index}` }, newKey(), via));
      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
      const orders = responses.map((response) => response.body.order as number).sort((a, b) => a - b);
      expect(orders).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    });
  });

  describe('OpenAPI', () => {
    it('documents the operation: scope, one Idempotency-Key header, the 201 schema and every error with the error body', async () => {
      const document = (await app.http().get('/docs-json').expect(200)).body;
      const operation = document.paths[PATH].post;
      expect(operation['x-required-scope']).toBe(DirectoryScope.Manage);
      expect(operation.security).toEqual([{ 'api-key': [] }]);
      const headers = operation.parameters.filter((parameter: { in: string; name: string }) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key');
      expect(headers).toHaveLength(1);
      expect(headers[0]).toMatchObject({ required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } });

      const created = operation.responses['201'];
      expect(created.headers['Idempotent-Replayed']).toBeDefined();
      const schemaName = created.content['application/json'].schema.$ref.split('/').pop();
      const schema = document.components.schemas[schemaName];
      expect(Object.keys(schema.properties).sort()).toEqual(['created_at', 'department_id', 'external_id', 'name', 'order', 'parent_id', 'revision', 'updated_at']);
      expect(schema.properties.order).toMatchObject({ type: 'integer', format: 'int64' });

      const request = document.components.schemas[operation.requestBody.content['application/json'].schema.$ref.split('/').pop()];
      expect(request.required).toEqual(['name']);
      expect(request.properties.name.maxLength).toBe(255);
      expect(request.properties.external_id.maxLength).toBe(512);

      for (const status of ['400', '401', '403', '409', '413', '415', '422', '429']) {
        expect(operation.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBodyDto');
      }
      const conflictCodes = Object.keys(operation.responses['409'].content['application/json'].examples).sort();
      expect(conflictCodes).toEqual(['DEPARTMENT_NAME_CONFLICT', 'EXTERNAL_ID_CONFLICT', 'IDEMPOTENCY_REQUEST_IN_PROGRESS']);
      for (const code of conflictCodes) expect(operation.responses['409'].description.split(`\`${code}\``)).toHaveLength(2);
      expect(Object.keys(operation.responses['422'].content['application/json'].examples).sort()).toEqual(['DEPARTMENT_TOO_DEEP', 'IDEMPOTENCY_KEY_REUSED', 'PARENT_NOT_FOUND']);
      expect(Object.keys(operation.responses['400'].content['application/json'].examples).sort()).toEqual([
        'IDEMPOTENCY_KEY_MISSING',
        'INVALID_JSON',
        'VALIDATION_FAILED',
        'VALIDATION_FAILED (Idempotency-Key)',
      ]);
    });
  });
});
