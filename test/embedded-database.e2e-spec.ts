import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminService } from '../src/admin/admin.service';
import { openDatabase } from '../src/database/database';
import { defaultMigrationsDir, readMigrations } from '../src/database/migrator';

const settings = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: 1, DATABASE_POOL_TIMEOUT_MS: 5000, DATABASE_STATEMENT_TIMEOUT_MS: 5000, DATABASE_PREPARED_STATEMENTS: 100, TRANSACTION_TIMEOUT_MS: 5000 });

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
      organizationId = (await new AdminService(first.sql).createOrganization('Kept across restarts')).id;
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

  it("holds only the service's database, with 1 MB WAL segments (docs/operations.md, \"What the template holds\")", async () => {
    const database = await openDatabase(settings(join(parent, 'contents')));
    try {
      const databases = await database.prisma.$queryRawUnsafe<Array<{ datname: string }>>('SELECT datname FROM pg_database ORDER BY datname');
      expect(databases.map((row) => row.datname)).toEqual(['postgres']);
      expect(await database.prisma.$queryRawUnsafe('SHOW wal_segment_size')).toEqual([{ wal_segment_size: '1MB' }]);
      // PGlite's own default is 128MB, resident from the start.
      expect(await database.prisma.$queryRawUnsafe('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await database.close();
    }
  });

  it('fills an existing empty directory the same way', async () => {
    const dataDir = join(parent, 'empty');
    mkdirSync(dataDir);
    expect(await recordedMigrations(dataDir)).toEqual(current);
  });
});

describe('the embedded database lock', () => {
  const parent = mkdtempSync(join(tmpdir(), 'wsa-lock-'));
  const distCli = join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');

  it('refuses a second opener, and lets the next one in once the first has closed', async () => {
    const dataDir = join(parent, 'shared');
    const first = await openDatabase(settings(dataDir));
    try {
      await expect(openDatabase(settings(dataDir))).rejects.toThrow(/in use by another process/);
    } finally {
      await first.close();
    }
    const next = await openDatabase(settings(dataDir));
    await next.close();
  });

  it('holds against a process in another PID namespace (two containers on one volume), which cannot see the holder', async () => {
    const dataDir = join(parent, 'volume');
    const holder = await openDatabase(settings(dataDir));
    try {
      // Spawned without blocking this process: the holder must keep refreshing its lock meanwhile, or
      // a slow start of the second writer would find the lock stale and rightly take it over.
      const second = spawn('unshare', ['--pid', '--fork', 'node', distCli, 'org', 'create', '--name', 'second writer'], {
        env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
      });
      let stderr = '';
      second.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const [status] = (await once(second, 'close')) as [number | null];
      expect(status).toBe(1);
      expect(stderr).toContain('in use by another process');
      expect(await holder.prisma.organization.count({ where: { name: 'second writer' } })).toBe(0);
    } finally {
      await holder.close();
    }
  });

  it('takes over a lock its holder stopped refreshing (a process that died without releasing it)', async () => {
    const dataDir = join(parent, 'crashed');
    mkdirSync(`${dataDir}.lock`, { recursive: true });
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(`${dataDir}.lock`, longAgo, longAgo);
    const database = await openDatabase(settings(dataDir));
    await database.close();
  });
});
