import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { shippedStartCommand } from '../bench/environment';
import { dockerfile, dockerfileText, imageEnvironment } from './support/dockerfile';
import { startTestApp, useTestApp } from './support/test-app';

const root = join(__dirname, '..');

/** The exec-form command of the image's HEALTHCHECK, as Docker would run it. */
function healthCheckCommand(): string[] {
  const line = /HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/.exec(dockerfileText);
  if (!line) throw new Error('The Dockerfile has no exec-form HEALTHCHECK');
  return JSON.parse(line[1]) as string[];
}

/** Runs the check (asynchronously: the app under test answers from this process); resolves with its exit code. */
const probe = (port: number) =>
  new Promise<number | null>((resolve) => {
    const [command, ...args] = healthCheckCommand();
    const child = spawn(command, args, { env: { ...process.env, PORT: String(port) }, stdio: 'ignore', timeout: 3000 });
    child.on('exit', (code) => resolve(code));
  });

describe("the image's start command", () => {
  const shipped = shippedStartCommand(root);

  it('is npm start\'s: the same node options and script', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfileText);
    if (!cmd) throw new Error('The Dockerfile has no exec-form CMD');
    expect(JSON.parse(cmd[1])).toEqual(['node', ...shipped.nodeOptions, shipped.script]);
  });

  it("sets the environment npm start sets, in the runtime stage's ENV", () => {
    expect(Object.keys(shipped.environment).length).toBeGreaterThan(0);
    expect(imageEnvironment()).toMatchObject(shipped.environment);
  });
});

describe("the image's stages", () => {
  it('build on one Node image pinned by version, like the other images of compose.yaml', () => {
    expect(dockerfile.getFROMs().map((from) => from.getImage())).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}', '${NODE_IMAGE}']);
    const [argument] = dockerfile.getInitialARGs();
    expect(argument.getProperty()?.getName()).toBe('NODE_IMAGE');
    expect(argument.getProperty()?.getValue()).toMatch(/^node:\d+\.\d+\.\d+-bookworm-slim$/);
  });

  it('declare no VOLUME: replicas on PostgreSQL keep nothing on disk and need no anonymous volume', () => {
    expect(dockerfile.getInstructions().map((instruction) => instruction.getKeyword())).not.toContain('VOLUME');
  });
});

describe("the image's health check, run outside a container", () => {
  const service = useTestApp({ listen: true });

  it('probes liveness (/healthz) without starting Node: healthy while the service answers', async () => {
    expect(healthCheckCommand()[0]).toBe('bash');
    expect(healthCheckCommand().join(' ')).toContain('/healthz');
    expect(await probe(service.port)).toBe(0);
  });

  it('reports unhealthy when nothing answers on the port', async () => {
    const closed = await startTestApp(service.database);
    await closed.app.listen(0, '127.0.0.1');
    const unused = (closed.app.getHttpServer().address() as AddressInfo).port;
    await closed.close();
    expect(await probe(unused)).toBe(1);
  });
});
