import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { freshEmbeddedEnvironment, printedDemoKey, startService } from './support/started-service';
import { createTenant, openTestDatabase, testDatabaseUrl, type TestTenant } from './support/test-app';

const distMain = join(__dirname, '..', 'dist', 'src', 'main.js');
const onPostgres = testDatabaseUrl() !== undefined;
// The 120 creates queue on their organization's order counter, one at a time: on a slow machine the
// last waits longer than the default statement and pool deadlines (5 s), which lock-waits and
// database-faults test. Here they are raised so that only draining decides the answers; and the
// delay is 5 s so that, on a loaded machine, the requests sent 150 ms after the signal still
// arrive within it (with 2 s, one of them was reset on a loaded 2-core machine).
const QUEUE_WITHOUT_DEADLINES = { DATABASE_STATEMENT_TIMEOUT_MS: '15000', DATABASE_POOL_TIMEOUT_MS: '15000' };

interface Answer {
  status: number;
  body: string;
}

/** One request over a keep-alive agent; resolves with the status, or rejects on a dropped connection. */
function send(port: number, agent: Agent, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The built service as its own process, as a container runs it; SIGTERM is what an orchestrator sends. */
(onPostgres ? describe : describe.skip)('SIGTERM drains the service (built service on PostgreSQL)', () => {
  let tenant: TestTenant;

  beforeAll(async () => {
    const database = await openTestDatabase();
    tenant = await createTenant(database);
    await database.close();
  });

  it('turns readiness 503, still serves new connections during the delay, finishes every request in flight and exits 0', async () => {
    const child: ChildProcess = spawn('node', [distMain], {
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), PORT: '0', LOG_LEVEL: 'log', SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_TIMEOUT_MS: '20000', RATE_LIMIT_PER_MINUTE: '0', ...QUEUE_WITHOUT_DEADLINES },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', () => reject(new Error(`service exited:\n${output}`)));
      const check = setInterval(() => {
        const match = /Listening on port (\d+)/.exec(output);
        if (match) {
          clearInterval(check);
          resolve(Number(match[1]));
        }
      }, 20);
    });
    // One connection per request, so that every request is on the wire before the signal.
    const agent = new Agent({ keepAlive: true, maxSockets: 200 });
    expect((await send(port, agent, 'GET', '/readyz')).status).toBe(200);

    const run = randomUUID().slice(0, 8);
    const create = (i: number) =>
      send(port, agent, 'POST', '/api/openapi/v1/departments', { Authorization: tenant.bearer, 'Content-Type': 'application/json', 'Idempotency-Key': `${run}-${i}` }, JSON.stringify({ name: `Drain ${run} ${i}` }));
    const inFlight = Array.from({ length: 120 }, (_, i) => create(i).catch((error: Error) => ({ status: 0, body: error.message })));
    await new Promise((resolve) => setTimeout(resolve, 30));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 150));

    const fresh = new Agent({ keepAlive: false });
    const readiness = await send(port, fresh, 'GET', '/readyz');
    const lateCreate = await send(port, fresh, 'POST', '/api/openapi/v1/departments', { Authorization: tenant.bearer, 'Content-Type': 'application/json', 'Idempotency-Key': `${run}-late` }, JSON.stringify({ name: `Drain ${run} late` }));
    const answers = await Promise.all(inFlight);
    const { code, signal } = await exited;
    agent.destroy();

    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(lateCreate.status).toBe(201);
    expect(answers.map((answer) => answer.status)).toEqual(Array(120).fill(201));
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output).toContain('SIGTERM: draining');
    expect(output).toContain('Stopped');
  });
});

// Ctrl-C in the terminal running `npm start` sends SIGINT: the same drain as SIGTERM.
describe('SIGINT drains the service too (built service on a new embedded database)', () => {
  it('drains, stops, releases the embedded database\'s lock and exits 0', async () => {
    const env = freshEmbeddedEnvironment('wsa-sigint-');
    const service = await startService(env);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => service.process.once('exit', (code, signal) => resolve({ code, signal })));
    service.process.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(service.output()).toContain('SIGINT: draining');
    expect(service.output()).toContain('Stopped');
    expect(existsSync(`${env.DATA_DIR}.lock`)).toBe(false);
  }, 60_000);
});

/** A create whose body never arrives in full: the request stays in flight until the service cuts its connection. */
function stalledCreate(baseUrl: string, apiKey: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname, () => {
      socket.write(
        [
          'POST /api/openapi/v1/departments HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${apiKey}`,
          'Content-Type: application/json',
          `Idempotency-Key: ${randomUUID()}`,
          'Content-Length: 1000',
          '',
          '{"name": "Never fini',
        ].join('\r\n'),
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

describe('SHUTDOWN_TIMEOUT_MS running out (built service on a new embedded database)', () => {
  it('cuts the connections of requests still running, logs a warning and exits 0', async () => {
    const env = { ...freshEmbeddedEnvironment('wsa-shutdown-timeout-'), SHUTDOWN_DELAY_MS: '0', SHUTDOWN_TIMEOUT_MS: '1500' };
    const service = await startService(env);
    const socket = await stalledCreate(service.baseUrl, printedDemoKey(service.output()));
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => service.process.once('exit', (code, signal) => resolve({ code, signal })));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalled = Date.now();
    service.process.kill('SIGTERM');
    const closedAfterMs = (await closed) - signalled;
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(received).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(1400);
    expect(service.output()).toMatch(/WARN.*Requests still running after 1500 ms were cut off/);
    expect(service.output()).toContain('Stopped');
  }, 60_000);
});
