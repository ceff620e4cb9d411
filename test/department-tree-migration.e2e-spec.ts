import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/database/database';
import { defaultMigrationsDir } from '../src/database/migrator';
import { createScratchDatabase, serverDatabaseUrl } from './support/postgres-test-databases';
import { testConfig } from './support/test-app';

// The migrations that make departments a maintainable tree, on a database that already holds one.
const FIRST = '20261202060000_department_tree_and_revisions';
const server = serverDatabaseUrl();

describe('the department tree migrations, on existing departments and organizations', () => {
  let database: Database;

  beforeAll(async () => {
    const url = server ? await createScratchDatabase(server, 'department_tree_migration') : undefined;
    database = await openDatabase(testConfig({ DATABASE_URL: url }));
    // The embedded database starts from the migrated template: start it over from an empty schema.
    if (!url) {
      await database.prisma.$executeRawUnsafe('DROP SCHEMA public CASCADE');
      await database.prisma.$executeRawUnsafe('CREATE SCHEMA public');
    }
    const before = join(mkdtempSync(join(tmpdir(), 'wsa-migrations-')), 'migrations');
    cpSync(defaultMigrationsDir(), before, { recursive: true });
    for (const name of readdirSync(before)) if (name >= FIRST && !name.endsWith('.toml')) rmSync(join(before, name), { recursive: true });
    await database.migrate(before);
  });
  afterAll(() => database?.close());

  const sql = <T>(text: string, ...values: unknown[]) => database.prisma.$queryRawUnsafe<T[]>(text, ...values);

  it('backfills every path from the parent chain, starts revisions at 1, gives each organization its tree lock row, and new ones too', async () => {
    const [organization] = await sql<{ id: string }>("INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'Legacy') RETURNING id");
    let order = 0;
    const insert = async (name: string, parentId: string | null) =>
      (
        await sql<{ id: string }>(
          `INSERT INTO departments (id, organization_id, parent_id, name, name_key, "order", created_at)
           VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3::text, lower($3::text), $4::bigint, now() - INTERVAL '1 day') RETURNING id`,
          organization.id,
          parentId,
          name,
          ++order,
        )
      )[0].id;
    const top = await insert('Top', null);
    const child = await insert('Child', top);
    const grandchild = await insert('Grandchild', child);
    const other = await insert('Other', null);

    await database.migrate(defaultMigrationsDir());

    const rows = await sql<{ id: string; path: string; revision: bigint; same_time: boolean }>(
      'SELECT id, path, revision, updated_at = created_at AS same_time FROM departments WHERE organization_id = $1::uuid',
      organization.id,
    );
    const pathOf = Object.fromEntries(rows.map((row) => [row.id, row.path]));
    expect(pathOf).toEqual({
      [top]: `${top}/`,
      [child]: `${top}/${child}/`,
      [grandchild]: `${top}/${child}/${grandchild}/`,
      [other]: `${other}/`,
    });
    expect(rows.every((row) => row.revision === 1n && row.same_time)).toBe(true);

    const [newOrganization] = await sql<{ id: string }>("INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'New') RETURNING id");
    const locks = await sql<{ organization_id: string }>('SELECT organization_id FROM department_tree_locks WHERE organization_id IN ($1::uuid, $2::uuid)', organization.id, newOrganization.id);
    expect(locks.map((lock) => lock.organization_id).sort()).toEqual([organization.id, newOrganization.id].sort());
    // The lock row goes with its organization.
    await sql('DELETE FROM organizations WHERE id = $1::uuid', newOrganization.id);
    expect(await sql('SELECT 1 FROM department_tree_locks WHERE organization_id = $1::uuid', newOrganization.id)).toEqual([]);
  });
});
