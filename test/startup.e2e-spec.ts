import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hashApiKeyToken } from '../src/common/auth/api-key-token';
import { openDatabase } from '../src/database/database';
import { defaultMigrationsDir, readMigrations } from '../src/database/migrator';
import { startArgs, startService, stopService as stop } from './support/started-service';
import { APP_REGISTRIES } from '../src/app.module';

const distCli = join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');

describe('start-up on an empty embedded database', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'wsa-start-')), 'db');
  const env = { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'log' };

  it('starts from the migrated template, prints a demo key with every scope once, and serves Swagger UI', async () => {
    const first = await startService(env);
    let demoKey: string;
    let demoOrganizationId: string;
    try {
      // The new data directory is a copy of the template, which already holds every migration.
      expect(first.output()).not.toContain('Applied migrations');
      // Nest's own start narration (a line per module and per route) is debug, not the default level.
      expect(first.output()).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer/);
      demoKey = /\n\s+(wsk_[0-9A-Za-z]{40})\n/.exec(first.output())![1];
      demoOrganizationId = /Demo organization: ([0-9a-f-]{36})\n/.exec(first.output())![1];
      const docs = await fetch(`${first.baseUrl}/docs-json`);
      expect(docs.status).toBe(200);
      expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200);
      const authorization = { Authorization: `Bearer ${demoKey}` };
      const policy = await fetch(`${first.baseUrl}/api/openapi/v1/metering-policy`, { headers: authorization });
      expect(policy.status).toBe(200);
      const department = await fetch(`${first.baseUrl}/api/openapi/v1/departments`, {
        method: 'POST',
        headers: { ...authorization, 'Content-Type': 'application/json', 'Idempotency-Key': 'first-try' },
        body: JSON.stringify({ name: 'Research' }),
      });
      expect(department.status).toBe(201);

      // The data directory belongs to the running service: the CLI refuses it, saying what to do;
      // commands that need no database run beside it.
      await expect(promisify(execFile)('node', [distCli, 'org', 'create', '--name', 'x'], { env })).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/in use by another process \(possibly.*stop the service, run the command, start it again/s),
      });
      const scopes = await promisify(execFile)('node', [distCli, 'scopes'], { env });
      expect(JSON.parse(scopes.stdout).scopes.map((scope: { name: string }) => scope.name)).toEqual([...APP_REGISTRIES.scopes.names]);
      const help = await promisify(execFile)('node', [distCli, '--help'], { env });
      expect(help.stderr).toContain('demo-key');
    } finally {
      expect(await stop(first)).toBe(0);
    }
    // A clean shutdown closed the database and released its lock.
    expect(existsSync(`${dataDir}.lock`)).toBe(false);

    const database = await openDatabase({ DATA_DIR: dataDir, DATABASE_POOL_SIZE: 1, DATABASE_POOL_TIMEOUT_MS: 5000, DATABASE_STATEMENT_TIMEOUT_MS: 5000, DATABASE_PREPARED_STATEMENTS: 100, TRANSACTION_TIMEOUT_MS: 5000 });
    try {
      const key = await database.prisma.apiKey.findUniqueOrThrow({ where: { keyHash: hashApiKeyToken(demoKey) } });
      expect([...key.scopes].sort()).toEqual([...APP_REGISTRIES.scopes.names].sort());
      expect(key.organizationId).toBe(demoOrganizationId);
      expect(await database.prisma.expertSuite.count({ where: { organizationId: key.organizationId } })).toBe(1);
      const migrations = await database.prisma.$queryRawUnsafe<Array<{ migration_name: string; checksum: string }>>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name',
      );
      expect(migrations).toEqual(readMigrations(defaultMigrationsDir()).map((m) => ({ migration_name: m.name, checksum: m.checksum })));
    } finally {
      await database.close();
    }

    // With the service stopped, the CLI gets a new key for the demo organization back.
    const organizations = JSON.parse((await promisify(execFile)('node', [distCli, 'org', 'list'], { env })).stdout).organizations;
    expect(organizations).toEqual([{ id: demoOrganizationId, name: 'Demo organization', created_at: expect.stringMatching(/Z$/), active_api_keys: 1 }]);
    const newKey = JSON.parse((await promisify(execFile)('node', [distCli, 'demo-key'], { env })).stdout);
    expect(newKey).toEqual({ organization_id: demoOrganizationId, id: expect.any(String), key: expect.stringMatching(/^wsk_/), scopes: [...APP_REGISTRIES.scopes.names] });

    const second = await startService({ ...env, LOG_FORMAT: 'json' });
    try {
      expect(second.output()).not.toContain('wsk_');
      expect(second.output()).toContain(`Demo organization: ${demoOrganizationId}`);
      expect(second.output()).toContain('npm run --silent cli -- demo-key');
      const policy = await fetch(`${second.baseUrl}/api/openapi/v1/metering-policy`, { headers: { Authorization: `Bearer ${newKey.key}` } });
      expect(policy.status).toBe(200);
      expect(second.output()).not.toContain('Applied migrations');
      const lines = second.output().split('\n').filter((line) => line.trim() !== '');
      expect(lines.map((line) => JSON.parse(line).level)).toContain('info');
    } finally {
      expect(await stop(second)).toBe(0);
    }
    // Two starts of the service and five CLI processes: minutes on a busy 2-core machine.
  }, 180_000);

  it('refuses to start with an invalid setting and names the variable', async () => {
    await expect(promisify(execFile)('node', startArgs, { env: { ...env, PORT: 'eighty' } })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('PORT="eighty"'),
    });
  });
});
