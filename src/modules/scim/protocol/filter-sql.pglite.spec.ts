import { PGlite } from '@electric-sql/pglite';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Prisma } from '../../../generated/prisma/client';
import { filterAttributes, scimFilterSql } from './filter-sql';

// The statements filter-sql.spec.ts asserts, run on the embedded database against a table shaped
// like ours: that they parse, and that NULLs, LIKE escapes, case folding and value paths mean what
// RFC 7644 says.

const MIGRATIONS = join(__dirname, '..', '..', '..', '..', 'prisma', 'migrations');

/** caseless_key() as the migrations create it. */
function caselessKeyFunction(): string {
  for (const folder of readdirSync(MIGRATIONS).sort()) {
    const migration = readFileSync(join(MIGRATIONS, folder, 'migration.sql'), 'utf8');
    const statement = /CREATE FUNCTION "caseless_key"[\s\S]*?END;/.exec(migration)?.[0];
    if (statement) return statement;
  }
  throw new Error('No migration creates caseless_key()');
}

const USERS = filterAttributes('urn:ietf:params:scim:schemas:core:2.0:User', {
  id: { type: 'uuid', sql: Prisma.sql`u.id` },
  userName: { type: 'string', sql: Prisma.sql`u.user_name`, caselessKey: Prisma.sql`u.user_name_key` },
  externalId: { type: 'string', caseExact: true, sql: Prisma.sql`u.external_id` },
  title: { type: 'string', sql: Prisma.sql`u.title` },
  active: { type: 'boolean', sql: Prisma.sql`u.active` },
  'meta.lastModified': { type: 'dateTime', sql: Prisma.sql`u.updated_at` },
  emails: {
    anyElement: (condition) => Prisma.sql`EXISTS (SELECT FROM user_emails AS e WHERE e.user_id = u.id AND ${condition})`,
    subAttributes: { value: { type: 'string', sql: Prisma.sql`e.value` }, type: { type: 'string', sql: Prisma.sql`e.type` } },
  },
});

// PGlite loads its WebAssembly by dynamic import, which jest allows only under
// --experimental-vm-modules: `npm test` sets it, a bare `npx jest` does not (then this is skipped).
const withDynamicImport = process.env.NODE_OPTIONS?.includes('--experimental-vm-modules') ? describe : describe.skip;

withDynamicImport('scimFilterSql on the embedded database (npm test)', () => {
  let db: PGlite;

  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec(caselessKeyFunction());
    await db.exec(`
      CREATE TABLE users (id uuid PRIMARY KEY, user_name text NOT NULL, user_name_key text NOT NULL, external_id text, title text, active boolean NOT NULL, updated_at timestamptz(3) NOT NULL);
      CREATE TABLE user_emails (user_id uuid NOT NULL REFERENCES users, value text, type text);
      INSERT INTO users VALUES
        ('00000000-0000-4000-8000-000000000001', 'bjensen', caseless_key('bjensen'), 'Ext-1', 'Tour Guide', true, '2011-05-13T04:42:34.500Z'),
        ('00000000-0000-4000-8000-000000000002', 'Straße', caseless_key('Straße'), '100%_off', '', false, '2011-05-13T04:42:34Z'),
        ('00000000-0000-4000-8000-000000000003', 'jsmith', caseless_key('jsmith'), NULL, NULL, true, '2020-01-01T00:00:00Z');
      INSERT INTO user_emails VALUES
        ('00000000-0000-4000-8000-000000000001', 'bjensen@example.com', 'work'),
        ('00000000-0000-4000-8000-000000000001', 'babs@jensen.org', 'home'),
        ('00000000-0000-4000-8000-000000000003', 'js@example.org', 'home');
    `);
  });

  afterAll(async () => {
    await db.close();
  });

  async function userNames(filter: string): Promise<string[]> {
    const where = scimFilterSql(filter, USERS);
    const { rows } = await db.query<{ user_name: string }>(`SELECT u.user_name FROM users AS u WHERE ${where.text} `, where.values);
    return rows.map((row) => row.user_name).sort();
  }

  it.each([
    ['userName eq "BJENSEN"', ['bjensen']],
    ['userName eq "STRASSE"', ['Straße']],
    ['userName sw "J"', ['jsmith']],
    ['userName gt "c"', ['Straße', 'jsmith']],
    ['externalId eq "ext-1"', []],
    ['externalId co "%_"', ['Straße']],
    ['externalId sw "1"', ['Straße']],
    ['externalId sw "ext"', []],
    ['externalId sw "Ext"', ['bjensen']],
    ['title pr', ['bjensen']],
    ['title eq null', ['Straße', 'jsmith']],
    ['title ne "Tour Guide"', ['Straße', 'jsmith']],
    ['not (title co "guide")', ['Straße', 'jsmith']],
    ['active eq false', ['Straße']],
    ['meta.lastModified gt "2011-05-13T04:42:34.4Z"', ['bjensen', 'jsmith']],
    ['meta.lastModified le "2011-05-13T06:42:34+02:00"', ['Straße']],
    ['id eq "00000000-0000-4000-8000-000000000003"', ['jsmith']],
    ['id eq "jsmith"', []],
    ['emails co "example"', ['bjensen', 'jsmith']],
    ['emails[type eq "work" and value co "@example.com"]', ['bjensen']],
    ['emails[type eq "home"].value co "example"', ['jsmith']],
    ['emails.type eq "home" and emails.value co "example.com"', ['bjensen']],
    ['emails pr', ['bjensen', 'jsmith']],
    ['not (emails pr) or userName eq "jsmith"', ['Straße', 'jsmith']],
  ])('%s', async (filter, expected) => {
    expect(await userNames(filter)).toEqual(expected);
  });
});
