import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useTestApp } from './support/test-app';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Generate a typed client\n'));
const [, setUp] = /```sh\n([\s\S]*?)```/.exec(section)!;
const [, client] = /```ts\n([\s\S]*?)```/.exec(section)!;

// It installs openapi-fetch, openapi-typescript and tsx from the npm registry, as a reader does.
const describeWithRegistry = process.env.TEST_WITHOUT_REGISTRY === '1' ? describe.skip : describe;

describeWithRegistry("README's typed-client recipe, in a new project outside the repository", () => {
  const fixture = useTestApp({ listen: true });

  it('generates the types from the served document and calls the API with a typed client', async () => {
    const repositoryStatus = async () => (await promisify(execFile)('git', ['status', '--porcelain'], { cwd: join(__dirname, '..') })).stdout;
    const before = await repositoryStatus();
    const parent = mkdtempSync(join(tmpdir(), 'wsa-client-'));
    const run = (script: string, cwd: string, env: NodeJS.ProcessEnv = {}) =>
      promisify(execFile)('bash', ['-c', `set -e\n${script}`], { cwd, env: { ...process.env, ...env, npm_config_yes: 'true' }, timeout: 240_000 });
    await run(setUp.replaceAll('http://localhost:3000', fixture.baseUrl), parent);
    const project = join(parent, 'workspace-admin-client');
    writeFileSync(join(project, 'client.ts'), client.replaceAll('http://localhost:3000', fixture.baseUrl));
    const { stdout } = await run('npx tsx client.ts', project, { WSA_KEY: fixture.tenant.apiKey });
    expect(stdout).toContain("cycle_mode: 'subscription-cycle'");
    // Nothing was written into this repository (no file, no changed pin).
    expect(await repositoryStatus()).toBe(before);
  }, 300_000);
});
