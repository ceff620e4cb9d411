import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseCommand, runCommand, UsageError } from '../src/cli/cli';
import { hashApiKeyToken } from '../src/common/auth/api-key-token';
import { startTestApp, useTestDatabase } from './support/test-app';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';
import { APP_REGISTRIES } from '../src/app.module';
import { Prisma } from '../src/generated/prisma/client';

const run = promisify(execFile);

interface CliError {
  code: string;
  message: string;
  usage?: string;
}

describe('admin CLI commands', () => {
  const fixture = useTestDatabase();

  /** Runs one command line in-process and returns its exit code and output. */
  async function cli(...argv: string[]): Promise<{ code: number; json: Record<string, unknown> | undefined; error: CliError | undefined }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(parseCommand(argv), fixture.admin, { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(out.length + err.length).toBe(1);
    return { code, json: out[0] === undefined ? undefined : JSON.parse(out[0]), error: err[0] === undefined ? undefined : JSON.parse(err[0]).error };
  }

  it('creates an organization with a subscription anchored at creation', async () => {
    const { code, json } = await cli('org', 'create', '--name', '  Acme  ');
    expect(code).toBe(0);
    expect(json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme' });
    const subscription = await fixture.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: json!.id as string } });
    expect(Date.now() - subscription.anchorAt.getTime()).toBeLessThan(60_000);
  });

  it('issues a key shown once and stored as its hash, then revokes it', async () => {
    const org = (await cli('org', 'create', '--name', 'Keys')).json!;
    const created = await cli('apikey', 'create', '--org', org.id as string, '--scopes', `${QuotaScope.Read},${DirectoryScope.Manage}`);
    expect(created.code).toBe(0);
    expect(created.json).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wsk_[0-9A-Za-z]{40}$/), scopes: [QuotaScope.Read, DirectoryScope.Manage] });
    const stored = await fixture.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.json!.id as string } });
    expect(stored.keyHash).toBe(hashApiKeyToken(created.json!.key as string));

    const revoked = await cli('apikey', 'revoke', '--id', created.json!.id as string);
    expect(revoked.json).toEqual({ id: created.json!.id, revoked_at: expect.stringMatching(/Z$/) });
    expect((await fixture.database.prisma.apiKey.findUniqueOrThrow({ where: { id: stored.id } })).revokedAt).not.toBeNull();
    expect((await cli('apikey', 'revoke', '--id', created.json!.id as string)).json).toEqual(revoked.json);
    const unknown = await cli('apikey', 'revoke', '--id', '00000000-0000-4000-8000-000000000000');
    expect(unknown).toEqual({ code: 1, json: undefined, error: { code: 'operation_refused', message: expect.stringContaining('No API key') } });
  });

  it('prints the scope catalog: every scope an operation of the document requires, with what it grants, read and manage apart', async () => {
    const { code, json } = await cli('scopes');
    expect(code).toBe(0);
    const scopes = json!.scopes as Array<{ name: string; grants: string }>;
    const names = scopes.map((scope) => scope.name);
    expect(names).toEqual([...names].sort());
    for (const scope of scopes) expect(scope).toEqual({ name: expect.stringMatching(/^admin\.v1\.[a-z0-9.-]+\.(read|manage|execute|provision)$/), grants: expect.stringMatching(/\w{3,}/) });
    expect(APP_REGISTRIES.scopes.names).toEqual(names);
    // The catalog is what the operations need: each scope guards an operation, and no operation needs another.
    const testApp = await startTestApp(fixture.database);
    try {
      const document = (await testApp.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> };
      const required = Object.values(document.paths).flatMap((pathItem) => Object.values(pathItem).flatMap((operation) => operation['x-required-scope'] ?? []));
      expect([...new Set(required)].sort()).toEqual(names);
    } finally {
      await testApp.close();
    }
    expect(names).toEqual(expect.arrayContaining([DirectoryScope.Read, DirectoryScope.Manage, QuotaScope.Read]));
  });

  it('issues a key holding every scope of the catalog with --scopes all', async () => {
    const org = (await cli('org', 'create', '--name', 'Everything')).json!;
    const created = await cli('apikey', 'create', '--org', org.id as string, '--scopes', 'all');
    expect(created).toMatchObject({ code: 0, json: { key: expect.stringMatching(/^wsk_/), scopes: [...APP_REGISTRIES.scopes.names] } });
    // "all" is a word of its own, not a scope among others.
    const mixed = await cli('apikey', 'create', '--org', org.id as string, '--scopes', `all,${QuotaScope.Read}`);
    expect(mixed).toMatchObject({ code: 2, error: { code: 'invalid_argument', message: expect.stringContaining('Unknown scope(s): all') } });
  });

  it('lists an organization\'s keys with a short prefix, scopes and times, never the key or its hash', async () => {
    const org = (await cli('org', 'create', '--name', 'Listed')).json!;
    const other = (await cli('org', 'create', '--name', 'Other')).json!;
    const first = (await cli('apikey', 'create', '--org', org.id as string, '--scopes', DirectoryScope.Read)).json!;
    // Creation times a few milliseconds apart, so that the order is decided by them alone.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await cli('apikey', 'create', '--org', org.id as string, '--scopes', `${QuotaScope.Read},${DirectoryScope.Manage}`)).json!;
    await cli('apikey', 'create', '--org', other.id as string, '--scopes', QuotaScope.Read);
    await cli('apikey', 'revoke', '--id', first.id as string);

    const listed = await cli('apikey', 'list', '--org', org.id as string);
    expect(listed.code).toBe(0);
    const keys = listed.json!.api_keys as Array<Record<string, unknown>>;
    expect(keys.map((key) => key.id)).toEqual([second.id, first.id]);
    const byId = new Map(keys.map((key) => [key.id, key]));
    expect(byId.get(first.id)).toEqual({
      id: first.id,
      prefix: (first.key as string).slice(0, 10),
      scopes: [DirectoryScope.Read],
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/),
      revoked_at: expect.stringMatching(/Z$/),
    });
    expect(byId.get(second.id)).toMatchObject({ scopes: [QuotaScope.Read, DirectoryScope.Manage], revoked_at: null });
    const printed = JSON.stringify(listed.json);
    for (const key of [first, second]) {
      expect(printed).not.toContain(key.key as string);
      expect(printed).not.toContain(hashApiKeyToken(key.key as string));
    }
    expect((await cli('apikey', 'list', '--org', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
  });

  it('refuses unknown scopes, naming the catalog (exit code 2), and unknown organizations (exit code 1)', async () => {
    const org = (await cli('org', 'create', '--name', 'Strict')).json!;
    const unknownScope = await cli('apikey', 'create', '--org', org.id as string, '--scopes', 'admin.v1.everything');
    expect(unknownScope).toEqual({
      code: 2,
      json: undefined,
      error: { code: 'invalid_argument', message: expect.stringContaining('Unknown scope(s): admin.v1.everything'), usage: expect.stringMatching(/^apikey create /) },
    });
    expect(unknownScope.error?.message).toContain(`The catalog: ${APP_REGISTRIES.scopes.names.join(', ')}`);
    const unknownOrg = await cli('category', 'create', '--org', '00000000-0000-4000-8000-000000000000', '--name', 'x');
    expect(unknownOrg).toMatchObject({ code: 1, error: { code: 'operation_refused', message: expect.stringContaining('No organization') } });
  });

  it('creates a category and an expert suite as the API returns it', async () => {
    const org = (await cli('org', 'create', '--name', 'Suites')).json!;
    const category = await cli('category', 'create', '--org', org.id as string, '--name', 'Finance');
    expect(category.json).toEqual({ id: expect.any(String), name: 'Finance' });
    expect(await cli('category', 'create', '--org', org.id as string, '--name', 'Finance')).toEqual({
      code: 1,
      json: undefined,
      error: { code: 'operation_refused', message: 'The organization already has a category named "Finance".' },
    });
    // Names are unique per organization: another one may use the same.
    const other = (await cli('org', 'create', '--name', 'Other suites')).json!;
    expect(await cli('category', 'create', '--org', other.id as string, '--name', 'Finance')).toMatchObject({ code: 0, json: { name: 'Finance' } });
    const suite = await cli('expert-suite', 'create', '--org', org.id as string, '--name', 'tax-helper');
    expect(suite.json).toMatchObject({
      name: 'tax-helper',
      status: 'draft',
      origin: 'enterprise',
      source_type: 'official',
      revision: 1,
      market_item_revision: 1,
      has_package: false,
      command_count: 0,
      category_id: null,
    });
  });

  it('moves the subscription anchor and refuses a date-time without a zone', async () => {
    const org = (await cli('org', 'create', '--name', 'Billing')).json!;
    const moved = await cli('subscription', 'set', '--org', org.id as string, '--anchor', '2026-01-31T09:30:00Z');
    expect(moved.json).toEqual({ organization_id: org.id, anchor_at: '2026-01-31T09:30:00.000Z' });
    const local = await cli('subscription', 'set', '--org', org.id as string, '--anchor', '2026-01-31 09:30');
    expect(local).toMatchObject({ code: 2, error: { code: 'invalid_argument', message: expect.stringContaining('--anchor') } });
  });

  it('refuses an anchor that names no real instant, or one before 1970, as the API refuses such date-times', async () => {
    const org = (await cli('org', 'create', '--name', 'Calendar')).json!;
    const anchorAt = async () => (await fixture.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: org.id as string } })).anchorAt;
    const before = await anchorAt();
    for (const anchor of ['2026-02-30T00:00:00Z', '2026-01-31T24:00:00Z', '1969-12-31T23:59:59Z', '0000-01-01T00:00:00Z']) {
      const refused = await cli('subscription', 'set', '--org', org.id as string, '--anchor', anchor);
      expect({ anchor, code: refused.code, message: refused.error?.message }).toEqual({ anchor, code: 2, message: expect.stringContaining('--anchor') });
    }
    expect(await anchorAt()).toEqual(before);
  });

  it('lists organizations oldest first with their active keys, and gets a new key for the demo organization back', async () => {
    const before = await cli('demo-key');
    expect(before).toEqual({ code: 1, json: undefined, error: { code: 'operation_refused', message: expect.stringContaining('No organization named "Demo organization"') } });
    const demo = (await cli('org', 'create', '--name', 'Demo organization')).json!;
    const first = await cli('demo-key');
    expect(first).toMatchObject({ code: 0, json: { organization_id: demo.id, key: expect.stringMatching(/^wsk_/), scopes: [...APP_REGISTRIES.scopes.names] } });
    await cli('apikey', 'revoke', '--id', first.json!.id as string);
    await cli('demo-key');

    const listed = await cli('org', 'list');
    expect(listed.code).toBe(0);
    const organizations = listed.json!.organizations as Array<{ id: string; name: string; created_at: string; active_api_keys: number }>;
    expect(organizations.find((organization) => organization.id === demo.id)).toEqual({
      id: demo.id,
      name: 'Demo organization',
      created_at: expect.stringMatching(/Z$/),
      active_api_keys: 1,
    });
    const times = organizations.map((organization) => organization.created_at);
    expect(times).toEqual([...times].sort());
  });

  it('gives demo-key\'s keys to the oldest organization named "Demo organization", and leaves the earlier keys working', async () => {
    await cli('org', 'create', '--name', 'Demo organization');
    const organizations = (await cli('org', 'list')).json!.organizations as Array<{ id: string; name: string }>;
    const oldest = organizations.find((organization) => organization.name === 'Demo organization')!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = (await cli('org', 'create', '--name', 'Demo organization')).json!;

    const earlier = (await cli('demo-key')).json!;
    const later = (await cli('demo-key')).json!;
    expect([earlier.organization_id, later.organization_id]).toEqual([oldest.id, oldest.id]);
    expect(oldest.id).not.toBe(newer.id);
    const testApp = await startTestApp(fixture.database);
    try {
      for (const key of [earlier.key, later.key]) await testApp.http().get('/api/openapi/v1/metering-policy').set('Authorization', `Bearer ${key as string}`).expect(200);
    } finally {
      await testApp.close();
    }
  });

  it('refuses a blank name with exit code 2 and the command\'s usage, writing nothing', async () => {
    const before = ((await cli('org', 'list')).json!.organizations as unknown[]).length;
    expect(await cli('org', 'create', '--name', '   ')).toEqual({
      code: 2,
      json: undefined,
      error: { code: 'invalid_argument', message: '--name must not be blank.', usage: 'org create --name NAME' },
    });
    expect((await cli('org', 'list')).json!.organizations).toHaveLength(before);
  });

  it('answers a malformed option value with exit code 2 and the command\'s usage', async () => {
    expect(await cli('apikey', 'list', '--org', 'not-a-uuid')).toEqual({
      code: 2,
      json: undefined,
      error: { code: 'invalid_argument', message: '--org must be a uuid, got "not-a-uuid".', usage: 'apikey list --org ORG_ID' },
    });
  });

  it('rejects unknown commands, unknown options and missing options before touching the database', () => {
    expect(() => parseCommand(['org', 'delete'])).toThrow(UsageError);
    expect(() => parseCommand(['org', 'create', '--nam', 'x'])).toThrow(/Unknown option/);
    expect(() => parseCommand(['apikey', 'create', '--org', 'x'])).toThrow(/Missing --scopes/);
  });

  describe('writes a change and its audit event in one transaction', () => {
    interface ChangeCommand {
      /** The command line, for an organization prepared as it needs (a key to revoke). */
      argv: (organizationId: string, apiKeyId: string) => string[];
      /** The table the command changes. */
      table: 'api_keys' | 'categories' | 'expert_suites' | 'subscriptions';
    }
    const COMMANDS: Record<string, ChangeCommand> = {
      'apikey create': { argv: (org) => ['apikey', 'create', '--org', org, '--scopes', QuotaScope.Read], table: 'api_keys' },
      'apikey revoke': { argv: (_org, key) => ['apikey', 'revoke', '--id', key], table: 'api_keys' },
      'category create': { argv: (org) => ['category', 'create', '--org', org, '--name', 'Atomic'], table: 'categories' },
      'expert-suite create': { argv: (org) => ['expert-suite', 'create', '--org', org, '--name', 'Atomic'], table: 'expert_suites' },
      'subscription set': { argv: (org) => ['subscription', 'set', '--org', org, '--anchor', '2026-01-02T03:04:05Z'], table: 'subscriptions' },
      'demo-key': { argv: () => ['demo-key'], table: 'api_keys' },
    };
    const REFUSAL = 'write refused by the test';

    /** An organization to run `command` on, with a key to revoke; demo-key works on the demo organization. */
    async function prepare(command: string): Promise<{ argv: string[]; organizationId: string }> {
      const organizationId =
        command === 'demo-key'
          ? ((await fixture.admin.demoOrganizationId()) ?? (await fixture.admin.createOrganization('Demo organization')).id)
          : (await fixture.admin.createOrganization(`Atomic ${command}`)).id;
      const key = await fixture.admin.createApiKey(organizationId, [QuotaScope.Read]);
      return { argv: COMMANDS[command].argv(organizationId, key.id), organizationId };
    }

    /** The organization's rows of `table`, whole, to tell whether anything changed. */
    async function rows(table: ChangeCommand['table'], organizationId: string): Promise<unknown[]> {
      return fixture.database.prisma.$queryRawUnsafe(`SELECT to_jsonb(t)::text AS row FROM ${table} t WHERE organization_id = $1::uuid ORDER BY id`, organizationId);
    }

    async function auditEventCount(organizationId: string): Promise<number> {
      const [{ count }] = await fixture.database.prisma.$queryRaw<Array<{ count: number }>>(Prisma.sql`SELECT count(*)::int AS count FROM audit_events WHERE organization_id = ${organizationId}::uuid`);
      return count;
    }

    /** Runs `work` while every insert or update of `table` fails (a trigger raising), as a failing write would. */
    async function whileWritesFail(table: string, work: () => Promise<void>): Promise<void> {
      const prisma = fixture.database.prisma;
      await prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${REFUSAL}'; END $$`);
      await prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_write AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_write()`);
      try {
        await work();
      } finally {
        await prisma.$executeRawUnsafe(`DROP TRIGGER refuse_write ON ${table}`);
      }
    }

    it.each(Object.keys(COMMANDS))('%s: a change that fails leaves no audit event', async (command) => {
      const { argv, organizationId } = await prepare(command);
      const events = await auditEventCount(organizationId);
      await whileWritesFail(COMMANDS[command].table, () => expect(cli(...argv)).rejects.toThrow(REFUSAL));
      expect(await auditEventCount(organizationId)).toBe(events);
      expect((await cli(...argv)).code).toBe(0);
      expect(await auditEventCount(organizationId)).toBe(events + 1);
    });

    it.each(Object.keys(COMMANDS))('%s: an audit event that fails leaves no change', async (command) => {
      const { argv, organizationId } = await prepare(command);
      const before = await rows(COMMANDS[command].table, organizationId);
      await whileWritesFail('audit_events', () => expect(cli(...argv)).rejects.toThrow(REFUSAL));
      expect(await rows(COMMANDS[command].table, organizationId)).toEqual(before);
      expect((await cli(...argv)).code).toBe(0);
      expect(await rows(COMMANDS[command].table, organizationId)).not.toEqual(before);
    });
  });
});

describe('admin CLI as a process (built dist, embedded database on disk)', () => {
  const cliPath = join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
  const env = { ...process.env, DATABASE_URL: '', DATA_DIR: join(mkdtempSync(join(tmpdir(), 'wsa-cli-')), 'db') };

  it('prints one JSON object per command and keeps state between runs', async () => {
    const org = JSON.parse((await run('node', [cliPath, 'org', 'create', '--name', 'Proc'], { env })).stdout);
    const key = JSON.parse((await run('node', [cliPath, 'apikey', 'create', '--org', org.id, '--scopes', APP_REGISTRIES.scopes.names.join(',')], { env })).stdout);
    expect(key.scopes).toEqual([...APP_REGISTRIES.scopes.names]);
  });

  it('prints the usage for --help (exit 0) and for no command at all (exit 2)', async () => {
    const help = await run('node', [cliPath, '--help'], { env });
    expect(help.stderr).toMatch(/^Usage: npm run --silent cli -- <command>\n {2}scopes\n/);
    await expect(run('node', [cliPath], { env })).rejects.toMatchObject({ code: 2, stderr: help.stderr });
  });

  it('prints a bad command line\'s error as one JSON object on stderr, with the usage (exit code 2)', async () => {
    const failed = await run('node', [cliPath, 'org', 'create'], { env }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse((failed as { stderr: string }).stderr)).toEqual({ error: { code: 'usage_error', message: 'Missing --name.', usage: 'org create --name NAME' } });
    const unknown = await run('node', [cliPath, 'org', 'delete'], { env }).catch((error: { stderr: string }) => error);
    expect(JSON.parse((unknown as { stderr: string }).stderr).error).toEqual({ code: 'usage_error', message: 'Unknown command "org delete".', usage: expect.stringMatching(/^Usage: npm run --silent cli -- <command>\n/) });
  });

  it('prints internal_error as one JSON line on stderr (exit code 1) when the database cannot be reached', async () => {
    // Nothing listens on port 1 of the loopback address: the connection is refused at once.
    const unreachable = { ...env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/nothing' };
    const failed = await run('node', [cliPath, 'org', 'list'], { env: unreachable }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    const lines = (failed as { stderr: string }).stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
  });
});
