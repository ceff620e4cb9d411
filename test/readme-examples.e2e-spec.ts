import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, serverDatabaseUrl } from './support/postgres-test-databases';
import { prefilledRequests, sendPrefilled, type OpenApiDocument } from './support/prefilled-requests';
import { freshEmbeddedEnvironment, printedDemoKey, startService, stopService, type RunningService } from './support/started-service';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The first ```sh block after the heading. */
function shellBlock(heading: string, index = 0): string {
  const section = readme.slice(readme.indexOf(`## ${heading}\n`));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  if (blocks[index] === undefined) throw new Error(`README has no sh block ${index} under "${heading}"`);
  return blocks[index];
}

async function bash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], { cwd: root, env, timeout: 120_000 });
  return stdout + stderr;
}

/** The statuses `curl -w '\n%{http_code}\n'` printed: the lines that are a status alone. */
const statusesIn = (output: string) => output.split('\n').filter((line) => /^\d{3}$/.test(line));

interface PastedService {
  process: ChildProcess;
  output: () => string;
  baseUrl: string;
}

/**
 * Runs a block that ends in `npm start` in a shell of its own (its process group, so that stopping
 * it reaches npm and the service under it), and waits for the service's readiness line.
 */
async function startPastedService(script: string, env: NodeJS.ProcessEnv): Promise<PastedService> {
  const child = spawn('bash', ['-c', script], { cwd: root, env: { ...env, PORT: '0' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the block exited with ${code}:\n${output}`)));
    const check = setInterval(() => {
      const match = /Swagger UI: (http:\/\/localhost:\d+)\/docs/.exec(output);
      if (match && output.includes('Ready: start-up complete')) {
        clearInterval(check);
        resolve(match[1]);
      }
    }, 50);
  });
  return { process: child, output: () => output, baseUrl };
}

async function stopPastedService(service: PastedService): Promise<void> {
  if (service.process.exitCode !== null) return;
  const exited = new Promise((resolve) => service.process.once('exit', resolve));
  process.kill(-service.process.pid!, 'SIGTERM');
  await exited;
}

describe("README's shell examples, run as pasted", () => {
  let service: RunningService | undefined;

  afterAll(async () => {
    if (service) await stopService(service);
  });

  it('"Call the API with curl" answers 2xx to each request, after every Swagger UI operation ran as prefilled, and again on a second run', async () => {
    const env = freshEmbeddedEnvironment('wsa-readme-');
    service = await startService(env);
    const key = printedDemoKey(service.output());
    // What a new user did first: every operation of Swagger UI, as prefilled.
    const document = (await (await fetch(`${service.baseUrl}/docs-json`)).json()) as OpenApiDocument;
    for (const prefilled of prefilledRequests(document)) {
      const response = await sendPrefilled(service.baseUrl, key, prefilled);
      expect(`${prefilled.label} ${response.status}`).toMatch(/ 2\d\d$/);
    }

    const block = shellBlock('Call the API with curl');
    const pasted = block.replace(/^KEY=wsk_\.\.\..*$/m, `KEY=${key}`).replaceAll('http://localhost:3000', service.baseUrl);
    expect(pasted).not.toBe(block);
    const requests = block.match(/-w '\\n%\{http_code\}\\n'/g)!.length;
    for (const run of [1, 2]) {
      const output = await bash(pasted, env);
      expect({ run, statuses: statusesIn(output) }).toEqual({ run, statuses: Array(requests).fill(expect.stringMatching(/^2\d\d$/)) });
      // Names and keys are made of the time in seconds.
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
  }, 180_000);

  // The block is written for PostgreSQL (DATABASE_URL); here it runs on a new embedded database, where
  // the CLI needs the service stopped: its CLI lines first, then the service starts, then its call.
  it('"Run on PostgreSQL" makes the organization, a key with every scope and the first call, answered 200', async () => {
    if (service) await stopService(service);
    service = undefined;
    // An organization made first: the service then makes no demo organization, as on PostgreSQL.
    const env = freshEmbeddedEnvironment('wsa-readme-pg-');
    const block = shellBlock('Run on PostgreSQL', 1);
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const cliLines = lines.filter((line) => line.includes('npm run --silent cli'));
    const callLines = lines.filter((line) => line.startsWith('curl '));
    expect(cliLines).toHaveLength(2);
    expect(callLines).toHaveLength(1);
    const key = (await bash(`${cliLines.join('\n')}\necho "$KEY"`, env)).trim().split('\n').pop()!;
    expect(key).toMatch(/^wsk_/);
    service = await startService(env);
    expect(service.output()).not.toMatch(/wsk_/);
    const output = await bash(`KEY=${key}\n${callLines.join('\n').replaceAll('http://localhost:3000', service.baseUrl)}`, env);
    expect(statusesIn(output)).toEqual(['200']);
  }, 180_000);
});

// The block as written, on a new PostgreSQL database (CI's PostgreSQL run): the first block migrates and
// starts the service, the second runs beside it, as the README says the CLI does on PostgreSQL.
(serverDatabaseUrl() ? describe : describe.skip)('README\'s "Run on PostgreSQL", run as pasted on PostgreSQL', () => {
  let service: PastedService | undefined;

  afterAll(async () => {
    if (service) await stopPastedService(service);
  });

  it('migrates a new database, starts, and makes the organization, a key with every scope and the first call, answered 200', async () => {
    const databaseUrl = await createScratchDatabase(serverDatabaseUrl()!, 'readme_run_on_postgresql');
    const env = { ...process.env, DATABASE_URL: '' };
    const start = shellBlock('Run on PostgreSQL', 0);
    const pastedStart = start.replace(/^export DATABASE_URL=\S+$/m, `export DATABASE_URL=${databaseUrl}`);
    expect(pastedStart).not.toBe(start);
    service = await startPastedService(pastedStart, env);
    expect(service.output()).not.toMatch(/wsk_/);

    const firstCall = shellBlock('Run on PostgreSQL', 1);
    const pastedFirstCall = firstCall.replaceAll('http://localhost:3000', service.baseUrl);
    expect(pastedFirstCall).not.toBe(firstCall);
    // The same shell session: the first block exported DATABASE_URL.
    const output = await bash(pastedFirstCall, { ...env, DATABASE_URL: databaseUrl });
    expect(output).toMatch(/^wsk_[0-9A-Za-z]{40}$/m);
    expect(statusesIn(output)).toEqual(['200']);
  }, 180_000);
});
