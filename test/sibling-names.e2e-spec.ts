import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caselessKey } from '../src/common/text/caseless-key';
import { openDatabase, type Database } from '../src/database/database';
import { defaultMigrationsDir } from '../src/database/migrator';
import { expectErrorBody } from './support/error-body';
import { createScratchDatabase, serverDatabaseUrl } from './support/postgres-test-databases';
import { createTenant, openTestDatabase, startTestApp, testConfig, type TestApp, type TestTenant } from './support/test-app';

const PATH = '/api/openapi/v1/departments';
const MIGRATION = '20261126120000_sibling_names_by_case_folding';
const server = serverDatabaseUrl();
const onPostgresOnly = server ? describe : describe.skip;

let keySequence = 0;
const newKey = () => `sibling-names-${process.pid}-${Date.now()}-${++keySequence}`;

/**
 * The sibling-name rule over HTTP, on whatever database `context` holds: names are stored and
 * returned in NFC, and siblings may not share a name's NFC case folding.
 */
function siblingNameRules(context: { database: Database; app: TestApp }) {
  let tenant: TestTenant;
  beforeEach(async () => {
    tenant = await createTenant(context.database);
  });

  const create = (body: { name: string; parent_id?: string }) =>
    context.app.http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', newKey()).send(body);

  it.each([
    ['Café', 'CAFÉ'],
    ['Café', 'Cafe\u0301'],
    ['CAFE\u0301', 'café'],
    ['straße', 'STRASSE'],
    ['STRAẞE', 'Strasse'],
    ['ΟΔΟΣ', 'οδος'],
    ['ﬁnance', 'FINANCE'],
  ])('refuses %j after its sibling %j with 409 DEPARTMENT_NAME_CONFLICT, top-level and nested', async (first, second) => {
    const created = await create({ name: first }).expect(201);
    expectErrorBody(await create({ name: second }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
    await create({ name: first, parent_id: created.body.department_id }).expect(201);
    expectErrorBody(await create({ name: second, parent_id: created.body.department_id }), 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
  });

  it.each([
    ['Cafe', 'Café'],
    ['DIŞ', 'DIS'],
    ['dıs', 'DIS'],
    ['Ｒesearch', 'Research'],
  ])('accepts %j and %j as siblings: they differ after case folding', async (first, second) => {
    await create({ name: first }).expect(201);
    await create({ name: second }).expect(201);
  });

  it('stores and returns the name in NFC, with its key', async () => {
    const response = await create({ name: '  Cafe\u0301 Noir  ' }).expect(201);
    expect(response.body.name).toBe('Caf\u00e9 Noir');
    const read = await context.app.http().get(`${PATH}/${response.body.department_id}`).set('Authorization', tenant.bearer).expect(200);
    expect(read.body.name).toBe('Caf\u00e9 Noir');
    const [stored] = await context.database.prisma.$queryRaw<Array<{ name: string; name_key: string }>>`
      SELECT name, name_key FROM departments WHERE id = ${response.body.department_id}::uuid`;
    expect(stored).toEqual({ name: 'Caf\u00e9 Noir', name_key: 'caf\u00e9 noir' });
  });

  it('creates one of 12 concurrent siblings spelled in different cases and forms; the rest get 409 DEPARTMENT_NAME_CONFLICT', async () => {
    const spellings = ['Café', 'CAFÉ', 'Cafe\u0301', 'CAFE\u0301', 'café', 'cafe\u0301'];
    const responses = await Promise.all([...spellings, ...spellings].map((name) => create({ name })));
    expect(responses.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(409)]);
    for (const response of responses.filter((r) => r.status === 409)) expectErrorBody(response, 409, 'DEPARTMENT_NAME_CONFLICT', 'conflict');
  });
}

describe('sibling department names by Unicode case folding, in NFC', () => {
  describe('on the test database (embedded, or PostgreSQL with TEST_DATABASE_URL)', () => {
    const context = {} as { database: Database; app: TestApp };
    beforeAll(async () => {
      context.database = await openTestDatabase();
      context.app = await startTestApp(context.database);
    });
    afterAll(async () => {
      await context.app?.close();
      await context.database?.close();
    });
    siblingNameRules(context);
  });

  onPostgresOnly('on a PostgreSQL database created with --locale=C', () => {
    const context = {} as { database: Database; app: TestApp };
    beforeAll(async () => {
      const url = await createScratchDatabase(server!, 'c_locale', "TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'");
      context.database = await openTestDatabase(testConfig({ DATABASE_URL: url }));
      context.app = await startTestApp(context.database, { DATABASE_URL: url });
    });
    afterAll(async () => {
      await context.app?.close();
      await context.database?.close();
    });

    it('is a C-locale database, whose lower() leaves É alone', async () => {
      const [row] = await context.database.prisma.$queryRawUnsafe<Array<{ ctype: string; lowered: string }>>(
        "SELECT datctype AS ctype, lower('CAFÉ') AS lowered FROM pg_database WHERE datname = current_database()",
      );
      expect(row).toEqual({ ctype: 'C', lowered: 'cafÉ' });
    });

    siblingNameRules(context);
  });
});

describe('the migration to sibling names by case folding, on existing departments', () => {
  let database: Database;
  let migrations: string;

  beforeAll(async () => {
    const url = server ? await createScratchDatabase(server, 'name_key_migration') : undefined;
    database = await openDatabase(testConfig({ DATABASE_URL: url }));
    // The embedded database starts from the migrated template: start it over from an empty schema.
    if (!url) {
      await database.prisma.$executeRawUnsafe('DROP SCHEMA public CASCADE');
      await database.prisma.$executeRawUnsafe('CREATE SCHEMA public');
    }
    migrations = join(mkdtempSync(join(tmpdir(), 'wsa-migrations-')), 'migrations');
    cpSync(defaultMigrationsDir(), migrations, { recursive: true });
    // The schema as it was before the migration: later ones may build on it (caseless_key()).
    for (const later of readdirSync(migrations).filter((name) => /^\d/.test(name) && name >= MIGRATION)) rmSync(join(migrations, later), { recursive: true });
    await database.migrate(migrations);
  });
  afterAll(() => database?.close());

  const sql = <T>(text: string, ...values: unknown[]) => database.prisma.$queryRawUnsafe<T[]>(text, ...values);

  it('keeps every name, in NFC, gives the oldest of each now-equal group the key and marks the others, and enforces the rule on SQL writers too', async () => {
    const [organization] = await sql<{ id: string }>("INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'Legacy') RETURNING id");
    let inserted = 0;
    const insert = async (name: string, order: number, parentId: string | null = null) =>
      (await sql<{ id: string }>(
        `INSERT INTO departments (id, organization_id, parent_id, name, "order", created_at)
         VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3, $4::bigint, now() + $5::int * INTERVAL '1 second') RETURNING id`,
        organization.id, parentId, name, order, ++inserted,
      ))[0].id;
    // The previous rule, lower(name), let all of these be siblings.
    const cafe = await insert('Café', 1);
    const cafeDecomposed = await insert('Cafe\u0301', 2);
    const strasse = await insert('straße', 3);
    const strasseCapitals = await insert('STRASSE', 4);
    const other = await insert('Other', 5);
    const nestedCafe = await insert('CAFE\u0301', 1, other);

    await database.migrate(defaultMigrationsDir());
    const rows = await sql<{ id: string; name: string; name_key: string }>('SELECT id, name, name_key FROM departments WHERE organization_id = $1::uuid', organization.id);
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(cafe)).toMatchObject({ name: 'Café', name_key: 'café' });
    expect(byId.get(cafeDecomposed)).toMatchObject({ name: 'Café', name_key: `café [DUPLICATE ${cafeDecomposed}]` });
    expect(byId.get(strasse)).toMatchObject({ name: 'straße', name_key: 'strasse' });
    expect(byId.get(strasseCapitals)).toMatchObject({ name: 'STRASSE', name_key: `strasse [DUPLICATE ${strasseCapitals}]` });
    expect(byId.get(other)).toMatchObject({ name: 'Other', name_key: 'other' });
    expect(byId.get(nestedCafe)).toMatchObject({ name: 'CAFÉ', name_key: 'café' });
    for (const row of rows) expect(row.name_key.startsWith(caselessKey(row.name))).toBe(true);

    // A writer that leaves name_key out (an instance of the previous release, an operator) gets it computed.
    await expect(insert('CAFÉ', 6)).rejects.toThrow(/departments_sibling_name_key/);
    const added = await insert('Brand New', 7);
    expect((await sql<{ name_key: string }>('SELECT name_key FROM departments WHERE id = $1::uuid', added))[0].name_key).toBe('brand new');
    await expect(sql('UPDATE departments SET name = $2 WHERE id = $1::uuid', other, 'STRASSE')).rejects.toThrow(/departments_sibling_name_key/);
    await sql('UPDATE departments SET name = $2 WHERE id = $1::uuid', other, 'Ander');
    expect((await sql<{ name_key: string }>('SELECT name_key FROM departments WHERE id = $1::uuid', other))[0].name_key).toBe('ander');
  });
});
