import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { AdminService } from '../src/admin/admin.service';
import { AdminError } from '../src/admin/admin-error';
import { insertedRow, violations } from '../src/database/constraint-violations';
import type { Database } from '../src/database/database';
import { Prisma } from '../src/generated/prisma/client';
import { createTenant, openTestDatabase, type TestTenant } from './support/test-app';

const script = join(__dirname, '..', 'scripts', 'constraint-names.mjs');

class Expected extends Error {}

describe('Constraint names from the migrations, and the errors their violations map to', () => {
  let database: Database;
  let tenant: TestTenant;

  beforeAll(async () => {
    database = await openTestDatabase();
    tenant = await createTenant(database);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('names exactly the unique constraints and foreign keys of the migrated database', async () => {
    const fromMigrations = JSON.parse(execFileSync(process.execPath, [script, '--json'], { encoding: 'utf8' }));
    const inDatabase = await database.sql.queries.query<{ name: string; kind: string }>(Prisma.sql`
      SELECT conname AS name, CASE contype WHEN 'f' THEN 'foreignKey' ELSE 'unique' END AS kind
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u', 'f')
      UNION
      SELECT i.relname, 'unique' FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indisunique AND i.relnamespace = 'public'::regnamespace`);
    // The migrator's own history table is not the application's schema.
    const named = (kind: string) =>
      [...new Set(inDatabase.filter((row) => row.kind === kind && !row.name.startsWith('_prisma_migrations')).map((row) => row.name))].sort();
    expect(fromMigrations).toEqual({ unique: named('unique'), foreignKey: named('foreignKey') });
  });

  it('keeps src/generated/constraints.ts as the migrations say (npm run db:generate and the build write it)', () => {
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('maps a unique violation of a raw statement and of a model query by the constraint it hit', async () => {
    const conflicts = violations({
      categories_organization_id_name_key: () => new Expected('name taken'),
      // @ts-expect-error a constraint no migration creates is a type error
      categories_organization_id_nmae_key: () => new Expected('never'),
    });
    const name = `category-${randomUUID()}`;
    const insert = Prisma.sql`INSERT INTO categories (id, organization_id, name) VALUES (gen_random_uuid(), ${tenant.organizationId}::uuid, ${name})`;
    await database.sql.queries.execute(insert);
    const raw = await database.sql.queries.execute(insert).catch((error: unknown) => conflicts(error));
    expect(raw).toEqual(new Expected('name taken'));
    const model = await database.prisma.category.create({ data: { organizationId: tenant.organizationId, name } }).catch((error: unknown) => conflicts(error));
    expect(model).toEqual(new Expected('name taken'));
  });

  it('maps a foreign-key violation, and hands back a violation of a constraint it was not given', async () => {
    const missingParent = violations({ departments_organization_id_parent_id_fkey: () => new Expected('no parent') });
    const insert = (parentId: string, name: string) => Prisma.sql`
      INSERT INTO departments (id, organization_id, parent_id, name, name_key, "order")
      VALUES (gen_random_uuid(), ${tenant.organizationId}::uuid, ${parentId}::uuid, ${name}, ${name}, 1)`;
    const orphan = await database.sql.queries.execute(insert(randomUUID(), 'orphan')).catch((error: unknown) => missingParent(error));
    expect(orphan).toEqual(new Expected('no parent'));

    const other = await database.sql.queries
      .execute(Prisma.sql`INSERT INTO organizations (id, name) VALUES (${tenant.organizationId}::uuid, 'twin')`)
      .catch((error: unknown) => missingParent(error));
    expect(other).not.toBeInstanceOf(Expected);
    expect(other).toBeInstanceOf(Error);
  });

  it('answers the admin tool’s duplicate category by its unique index', async () => {
    const admin = new AdminService(database.sql);
    const name = `admin-category-${randomUUID()}`;
    await admin.createCategory(tenant.organizationId, name);
    await expect(admin.createCategory(tenant.organizationId, name)).rejects.toThrow(new AdminError(`The organization already has a category named "${name}".`));
  });

  it('takes the one row a write returned, or the caller’s error for none', () => {
    expect(insertedRow([{ id: 1 }], () => new Expected('none'))).toEqual({ id: 1 });
    expect(() => insertedRow([], () => new Expected('none'))).toThrow(new Expected('none'));
  });
});
