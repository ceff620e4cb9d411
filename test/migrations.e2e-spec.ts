import { cpSync, mkdtempSync, writeFileSync, mkdirSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMigrationsDir, readMigrations } from '../src/database/migrator';
import { openDatabase, type Database } from '../src/database/database';
import { testConfig } from './support/test-app';

/** A private copy of the migrations folder that a test may add to or tamper with. */
function copyOfMigrations(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'wsa-migrations-')), 'migrations');
  cpSync(defaultMigrationsDir(), dir, { recursive: true });
  return dir;
}

describe('migration runner (embedded PGlite; the PostgreSQL path runs in every e2e set-up)', () => {
  let database: Database;

  beforeEach(async () => {
    database = await openDatabase(testConfig({ DATABASE_URL: undefined }));
  });
  afterEach(() => database.close());

  it('opens a new database from the template with every migration recorded as Prisma does', async () => {
    const dir = copyOfMigrations();
    expect(await database.migrate(dir)).toEqual([]);
    const rows = await database.prisma.$queryRawUnsafe<Array<{ migration_name: string; checksum: string; finished_at: Date | null }>>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(readMigrations(dir).map((m) => [m.name, m.checksum]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it('applies every migration once to an empty database and records it as Prisma does', async () => {
    await database.prisma.$executeRawUnsafe('DROP SCHEMA public CASCADE');
    await database.prisma.$executeRawUnsafe('CREATE SCHEMA public');
    const dir = copyOfMigrations();
    expect(await database.migrate(dir)).toEqual(readMigrations(dir).map((m) => m.name));
    expect(await database.migrate(dir)).toEqual([]);
    const rows = await database.prisma.$queryRawUnsafe<Array<{ migration_name: string; checksum: string; finished_at: Date | null }>>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"',
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(readMigrations(dir).map((m) => [m.name, m.checksum]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  it('applies a new migration added later, and rolls back one that fails', async () => {
    const dir = copyOfMigrations();
    await database.migrate(dir);
    mkdirSync(join(dir, '29990101000000_add_note'));
    writeFileSync(join(dir, '29990101000000_add_note', 'migration.sql'), 'ALTER TABLE "organizations" ADD COLUMN "note" TEXT;');
    expect(await database.migrate(dir)).toEqual(['29990101000000_add_note']);

    mkdirSync(join(dir, '29990102000000_broken'));
    writeFileSync(join(dir, '29990102000000_broken', 'migration.sql'), 'CREATE TABLE "half" ("id" INT);\nALTER TABLE "nope" ADD COLUMN "x" INT;');
    await expect(database.migrate(dir)).rejects.toThrow(/29990102000000_broken failed and was rolled back/);
    const half = await database.prisma.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half'`);
    expect(half).toHaveLength(0);
  });

  it('refuses to go on when an applied migration was edited afterwards', async () => {
    const dir = copyOfMigrations();
    await database.migrate(dir);
    appendFileSync(join(dir, readMigrations(dir)[0].name, 'migration.sql'), '\n-- edited\n');
    await expect(database.migrate(dir)).rejects.toThrow(/was changed after it was applied/);
  });
});
