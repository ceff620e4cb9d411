import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { dockerfileText, imageEnvironment, stage } from './support/dockerfile';
import { testDatabaseUrl } from './support/test-app';

// The image's production dependencies, made outside a container: the RUN commands of the
// Dockerfile's production-dependencies stage, run on package.json and the lockfile, then the
// built service started on them with the image's environment and command.
const root = join(__dirname, '..');

const productionDependencyCommands = () =>
  stage('production-dependencies')
    .filter((instruction) => instruction.getKeyword() === 'RUN')
    .map((instruction) => instruction.getArgumentsContent() ?? '');

/** The production dependencies, installed once per lockfile and commands (npm ci takes 10–20 s). */
function productionNodeModules(): string {
  const commands = productionDependencyCommands().join(' && ');
  const key = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).update(commands).digest('hex').slice(0, 16);
  const cached = join(homedir(), '.cache', 'wsa-ci', 'production-install', key);
  if (!existsSync(cached)) {
    mkdirSync(join(cached, '..'), { recursive: true });
    const building = mkdtempSync(`${cached}.building-`);
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(building, file));
    execFileSync('bash', ['-c', commands], { cwd: building, stdio: 'ignore', timeout: 300_000 });
    renameSync(building, cached);
  }
  return join(cached, 'node_modules');
}

describe('the Dockerfile', () => {
  it('has nothing the Dockerfile linter flags', () => {
    expect(validate(dockerfileText)).toEqual([]);
  });

  it('would be flagged by that linter if it were malformed', () => {
    expect(validate(dockerfileText.replace(/^EXPOSE .*$/m, 'EXPOSE three-thousand')).length).toBeGreaterThan(0);
  });
});

describe("the image's production dependencies, made outside a container", () => {
  let nodeModules: string;
  let app: string;
  let service: ChildProcess | undefined;

  beforeAll(() => {
    nodeModules = productionNodeModules();
    app = mkdtempSync(join(tmpdir(), 'wsa-production-'));
    symlinkSync(nodeModules, join(app, 'node_modules'));
    for (const path of ['package.json', 'dist', 'prisma']) cpSync(join(root, path), join(app, path), { recursive: true });
  }, 360_000);

  afterAll(() => {
    service?.kill('SIGKILL');
    rmSync(app, { recursive: true, force: true });
  });

  it('hold nothing the lockfile marks as needed for development only (the Prisma CLI, TypeScript, test tools)', () => {
    const { packages } = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
    const developmentOnly = Object.keys(packages).filter((path) => path !== '' && (packages[path].dev || packages[path].devOptional));
    expect(developmentOnly).toEqual(expect.arrayContaining(['node_modules/prisma', 'node_modules/typescript', 'node_modules/@nestjs/cli']));
    expect(developmentOnly.filter((path) => existsSync(join(nodeModules, '..', path)))).toEqual([]);
  });

  it('run the migrations, the CLI and the service, which answers with a key the CLI issued', async () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...imageEnvironment(), PORT: '0' };
    const databaseUrl = testDatabaseUrl();
    if (databaseUrl) env.DATABASE_URL = databaseUrl;
    else Object.assign(env, { EMBEDDED_DATABASE_IN_PRODUCTION: 'true', DATA_DIR: join(app, 'pglite') });
    const run = (script: string, ...args: string[]) => execFileSync(process.execPath, [script, ...args], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });

    run('dist/src/database/migrate.main.js');
    const organization = JSON.parse(run('dist/src/cli/main.js', 'org', 'create', '--name', 'Production install')) as { id: string };
    const key = JSON.parse(run('dist/src/cli/main.js', 'apikey', 'create', '--org', organization.id, '--scopes', 'admin.v1.quota.read')) as { key: string };

    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfileText)![1]) as string[];
    expect(command[0]).toBe('node');
    service = spawn(process.execPath, command.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    service.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      service!.stdout!.on('data', () => output.includes('Ready: start-up complete') && resolve());
      service!.on('exit', (code) => reject(new Error(`The service exited with ${code}:\n${output}`)));
    });
    const port = /Listening on port (\d+)/.exec(output)![1];
    const base = `http://127.0.0.1:${port}`;

    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/docs-json`)).status).toBe(200);
    const policy = await fetch(`${base}/api/openapi/v1/metering-policy`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(policy.status).toBe(200);
  }, 120_000);
});
