import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminService } from '../src/admin/admin.service';
import { openDatabase } from '../src/database/database';
import { defaultMigrationsDir, readMigrations } from '../src/database/migrator';

const settings = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: 1, DATABASE_POOL_TIMEOUT_MS: 5000, TRANSACTION_TIMEOUT_MS: 5000 });

async function recordedMigrations(dataDir: string): Promise<Array<[string, string]>> {
  const database = await openDatabase(settings(dataDir));
  try {
    const rows = await database.prisma.$queryRawUnsafe<Array<{ migration_name: string; checksum: string }>>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name',
    );
    return rows.map((row) => [row.migration_name, row.checksum]);
  } finally {
    await database.close();
  }
}

describe('embedded database on disk, created from the template', () => {
  const parent = mkdtempSync(join(tmpdir(), 'wsa-embedded-'));
  const current = readMigrations(defaultMigrationsDir()).map((m): [string, string] => [m.name, m.checksum]);

  it('comes up migrated in a new directory and keeps its rows across a reopen', async () => {
    const dataDir = join(parent, 'new', 'pglite');
    const first = await openDatabase(settings(dataDir));
    let organizationId: string;
    try {
      expect(await first.migrate()).toEqual([]);
      organizationId = (await new AdminService(first.prisma).createOrganization('Kept across restarts')).id;
    } finally {
      await first.close();
    }
    // Only the data directory and nothing half-copied beside it.
    expect(readdirSync(join(parent, 'new'))).toEqual(['pglite']);

    const second = await openDatabase(settings(dataDir));
    try {
      expect(await second.migrate()).toEqual([]);
      expect(await second.prisma.organization.findUniqueOrThrow({ where: { id: organizationId } })).toMatchObject({ name: 'Kept across restarts' });
    } finally {
      await second.close();
    }
    expect(await recordedMigrations(dataDir)).toEqual(current);
  });

  it('fills an existing empty directory the same way', async () => {
    const dataDir = join(parent, 'empty');
    mkdirSync(dataDir);
    expect(await recordedMigrations(dataDir)).toEqual(current);
  });
});
