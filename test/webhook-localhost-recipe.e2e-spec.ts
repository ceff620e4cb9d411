import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until, useTestApp } from './support/test-app';

const root = join(__dirname, '..');

/** The receiver sample of docs/webhooks.md, as a reader copies it. */
function documentedReceiver(): string {
  const docs = readFileSync(join(root, 'docs', 'webhooks.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Verifying (Node'));
  return /```js\n([\s\S]*?)```/.exec(section)![1];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// docs/webhooks.md, "Webhooks on localhost": the endpoint first, the receiver with its secret after.
describe('the documented webhook receiver on localhost', () => {
  const fixture = useTestApp({ overrides: { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_POLL_INTERVAL_MS: 200 } });
  let receiver: ChildProcess | undefined;

  afterAll(() => {
    receiver?.kill();
  });

  it('receives and verifies the first delivery, sent before it listened, once started with the secret of the endpoint created first', async () => {
    const port = await freePort();
    const created = await fixture
      .http()
      .post('/api/openapi/v1/webhook-endpoints')
      .set('Authorization', fixture.tenant.bearer)
      .send({ url: `http://localhost:${port}/hook`, event_types: ['*'] })
      .expect(201);
    const deliveries = async () =>
      (await fixture.http().get(`/api/openapi/v1/webhook-endpoints/${created.body.id}/deliveries`).set('Authorization', fixture.tenant.bearer).expect(200)).body.items as {
        status: string;
        attempts: number;
      }[];
    // Nothing listens yet: the endpoint's own creation event failed to connect and waits for its retry.
    await until(async () => (await deliveries())[0]?.attempts === 1);
    expect((await deliveries())[0].status).toBe('pending');

    const directory = mkdtempSync(join(tmpdir(), 'wsa-receiver-'));
    writeFileSync(join(directory, 'receiver.mjs'), documentedReceiver());
    symlinkSync(join(root, 'node_modules'), join(directory, 'node_modules'));
    receiver = spawn('node', ['receiver.mjs'], { cwd: directory, env: { ...process.env, WEBHOOK_SECRET: created.body.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    receiver.stdout!.on('data', (chunk) => (output += chunk));
    receiver.stderr!.on('data', (chunk) => (output += chunk));

    // The retry comes 5 s (±10 %) after the failed attempt: the schedule's first wait.
    await until(() => output.includes(`webhook_endpoint.created ${created.body.id}`));
    await until(async () => (await deliveries())[0]?.status === 'delivered');
    expect(output.trim().split('\n')).toEqual([`webhook_endpoint.created ${created.body.id}`]);
  }, 30_000);
});
