import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import Ajv from 'ajv';
import { Client } from 'pg';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parse } from 'yaml';
import { loadConfig, settingNames } from '../src/config/app-config';
import { imageEnvironment } from './support/dockerfile';
import { ProbeModule } from './support/probe.module';
import { testDatabaseUrl, until, useTestApp } from './support/test-app';

// compose.yaml cannot run here (no Docker engine): it is checked against the Compose
// specification's JSON schema (test/fixtures/compose-spec.json, from the compose-spec project),
// against what the deployment needs, and each command its containers run is run outside a container.
const root = join(__dirname, '..');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  env_file?: string;
  environment?: Record<string, string>;
  ports?: unknown[];
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  volumes?: string[];
}

const composeFile = () => parse(readFileSync(join(root, 'compose.yaml'), 'utf8')) as { services: Record<string, ComposeService> };

/** `${VARIABLE:-default}` as Compose resolves it, nested ones included, with the variables of `env`. */
const interpolate = (text: string, env: Record<string, string> = {}): string => {
  const resolved = text.replace(/\$\{(\w+):-([^${}]*)\}/g, (_match, name: string, fallback: string) => env[name] || fallback);
  return resolved === text ? text : interpolate(resolved, env);
};
const withDefaults = (text: string) => interpolate(text);

const envFile = (service: ComposeService) => parseEnv(readFileSync(join(root, withDefaults(service.env_file ?? '')), 'utf8'));

const seconds = (duration: string) => {
  const match = /^(\d+)s$/.exec(duration);
  if (!match) throw new Error(`Not a duration in seconds: ${duration}`);
  return Number(match[1]);
};

describe('compose.yaml', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // The schema names draft-07's meta-schema by its https address; Ajv knows it by the http one.
  ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' });
  const validate = ajv.compile(JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'compose-spec.json'), 'utf8')));

  it("is valid against the Compose specification's JSON schema", () => {
    const valid = validate(composeFile());
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('would be refused by that schema with a misspelled key', () => {
    const misspelled = composeFile();
    (misspelled.services.api as Record<string, unknown>).stop_grace = '20s';
    expect(validate(misspelled)).toBe(false);
  });

  it('builds the image once: the migration run uses the image the api service builds', () => {
    const { services } = composeFile();
    const building = Object.entries(services).filter(([, service]) => service.build !== undefined);
    expect(building.map(([name]) => name)).toEqual(['api']);
    expect(services.migrate.image).toBe(services.api.image);
  });

  it('replicates the api without a host port, behind the one proxy port', () => {
    const { services } = composeFile();
    expect(services.api.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.api.ports).toBeUndefined();
    expect(Object.entries(services).filter(([, service]) => service.ports).map(([name]) => name)).toEqual(['proxy']);
  });

  it('restarts every long-running service, and gives the api a stop grace period longer than its drain', () => {
    const { services } = composeFile();
    for (const name of ['db', 'redis', 'api', 'proxy']) expect(services[name].restart).toBe('unless-stopped');
    const imageDelayMs = imageEnvironment().SHUTDOWN_DELAY_MS;
    expect(imageDelayMs).toMatch(/^\d+$/);
    const config = loadConfig({ SHUTDOWN_DELAY_MS: imageDelayMs, ...envFile(services.api) });
    expect(seconds(services.api.stop_grace_period ?? '0s') * 1000).toBeGreaterThan(config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS);
  });

  it('pins the database image and takes credentials from env files, not from compose.yaml', () => {
    const { services } = composeFile();
    expect(services.db.image).toMatch(/^postgres:\d+\.\d+-/);
    // Only the api sets a variable in compose.yaml itself: its address, derived from the proxy's port.
    const inline = Object.entries(services).filter(([, service]) => service.environment).map(([name, service]) => [name, Object.keys(service.environment!)]);
    expect(inline).toEqual([['api', ['PUBLIC_BASE_URL']]]);
    expect(readFileSync(join(root, 'compose.yaml'), 'utf8')).not.toMatch(/PASSWORD\s*[:=]|postgres(ql)?:\/\/\w+:\w+@/i);
    const database = envFile(services.db);
    expect(database.POSTGRES_PASSWORD).toBeTruthy();
    expect(envFile(services.api).DATABASE_URL).toContain(`${database.POSTGRES_USER}:${database.POSTGRES_PASSWORD}@db:5432/${database.POSTGRES_DB}`);
  });

  it('gives the replicas the address the proxy is published at, following HTTP_PORT', () => {
    const { services } = composeFile();
    const published = (env: Record<string, string>) => interpolate(String(services.proxy.ports?.[0]), env).split(':')[0];
    const address = (env: Record<string, string>) => interpolate(services.api.environment!.PUBLIC_BASE_URL, env);
    expect(address({})).toBe(`http://localhost:${published({})}`);
    expect(address({ HTTP_PORT: '9090' })).toBe('http://localhost:9090');
    expect(published({ HTTP_PORT: '9090' })).toBe('9090');
    expect(address({ HTTP_PORT: '9090', PUBLIC_BASE_URL: 'https://admin.example.com' })).toBe('https://admin.example.com');
  });

  it("gives the replicas only settings of the service, with values it accepts in production", () => {
    const settings = { ...envFile(composeFile().services.api), PUBLIC_BASE_URL: withDefaults(composeFile().services.api.environment!.PUBLIC_BASE_URL) };
    expect(Object.keys(settings).filter((name) => !settingNames().includes(name))).toEqual([]);
    expect(() => loadConfig({ NODE_ENV: 'production', ...settings })).not.toThrow();
  });
});

describe("compose.yaml's migration command, run outside a container", () => {
  it('migrates an empty database and exits 0, again on the migrated one', async () => {
    const [command, ...args] = composeFile().services.migrate.command ?? [];
    const databaseUrl = testDatabaseUrl();
    if (databaseUrl) {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      await client.end();
    }
    const env = databaseUrl
      ? { ...process.env, DATABASE_URL: databaseUrl }
      : { ...process.env, DATABASE_URL: '', DATA_DIR: join(mkdtempSync(join(tmpdir(), 'wsa-migrate-')), 'pglite') };
    for (const run of [1, 2]) {
      const migrate = spawnSync(command === 'node' ? process.execPath : command, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
      expect({ run, status: migrate.status, stderr: migrate.stderr }).toEqual({ run, status: 0, stderr: '' });
    }
  });
});

// Debian's nginx runs compose/proxy.conf in front of two instances of the service. .ci/run installs
// it, so in CI (CI=true) this always runs; a developer machine without nginx skips it.
const NGINX = '/usr/sbin/nginx';
const describeWithNginx = existsSync(NGINX) || process.env.CI === 'true' ? describe : describe.skip;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describeWithNginx("compose/proxy.conf in nginx, in front of two replicas", () => {
  // The replicas trust the proxy, as compose/api.env's TRUST_PROXY trusts the compose network.
  const replica = () => useTestApp({ listen: true, overrides: { TRUST_PROXY: 'loopback' }, extraModules: [ProbeModule] });
  const replicas = [replica(), replica()];
  const answered = [0, 0];
  let nginx: ChildProcess;
  let proxyUrl: string;

  beforeAll(async () => {
    replicas.forEach((replica, index) => replica.app.app.getHttpServer().on('request', () => answered[index]++));
    const port = await freePort();
    const directory = mkdtempSync(join(tmpdir(), 'wsa-nginx-'));
    // The compose network's names become the test's addresses; everything else is the file as shipped.
    const site = readFileSync(join(root, 'compose', 'proxy.conf'), 'utf8')
      .replace(/^(\s*)server api:3000([^;]*);/m, (_, indent: string, options: string) => replicas.map((replica) => `${indent}server 127.0.0.1:${replica.port}${options};`).join('\n'))
      .replace(/listen 8080;/, `listen 127.0.0.1:${port};`);
    writeFileSync(join(directory, 'site.conf'), site);
    writeFileSync(
      join(directory, 'nginx.conf'),
      [
        process.getuid?.() === 0 ? 'user root;' : '',
        `pid ${directory}/nginx.pid;`,
        `error_log ${directory}/error.log;`,
        'daemon off;',
        'events {}',
        `http { access_log off; client_body_temp_path ${directory}/body; proxy_temp_path ${directory}/proxy;`,
        `  include ${directory}/site.conf; }`,
      ].join('\n'),
    );
    nginx = spawn(NGINX, ['-p', directory, '-c', join(directory, 'nginx.conf')], { stdio: 'ignore' });
    proxyUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${proxyUrl}/healthz`).catch(() => undefined))?.status === 200);
  });

  afterAll(() => {
    nginx?.kill('SIGQUIT');
  });

  it('is a configuration nginx accepts', () => {
    expect(nginx.exitCode).toBeNull();
  });

  it('sends requests to both replicas', async () => {
    const before = [...answered];
    for (let i = 0; i < 20; i++) expect((await fetch(`${proxyUrl}/healthz`)).status).toBe(200);
    expect(answered[0] - before[0]).toBeGreaterThan(0);
    expect(answered[1] - before[1]).toBeGreaterThan(0);
    expect(answered[0] + answered[1] - before[0] - before[1]).toBe(20);
  });

  it("passes the client's address, not one the client claims in X-Forwarded-For", async () => {
    const answer = await fetch(`${proxyUrl}/probe/client-address`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(await answer.json()).toEqual({ ip: '127.0.0.1' });
  });

  it('lets bodies up to the largest upload through, so that the service answers a too-large body with its own error', async () => {
    // A body is read only for a valid key: the first replica's, made known to the second one's
    // database (embedded, each has its own; on PostgreSQL they share the file's).
    const [first, second] = replicas;
    const key = await first.database.prisma.apiKey.findUniqueOrThrow({ where: { id: first.tenant.apiKeyId }, include: { organization: true } });
    if (!(await second.database.prisma.apiKey.findUnique({ where: { id: key.id } }))) {
      await second.database.prisma.organization.create({ data: { id: key.organization.id, name: key.organization.name } });
      await second.database.prisma.apiKey.create({ data: { id: key.id, organizationId: key.organizationId, keyHash: key.keyHash, keyPrefix: key.keyPrefix, scopes: key.scopes } });
    }
    const answer = await fetch(`${proxyUrl}/api/openapi/v1/departments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: first.tenant.bearer, 'idempotency-key': 'compose-large-body' },
      body: JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
  });
});
