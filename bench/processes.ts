import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const OUTPUT_KEPT_CHARS = 16_000;
const STOP_GRACE_MS = 5_000;

/** A server under test, run as its own node process. */
export class ServerProcess {
  /** The start of its stdout and the end of its stderr, for the demo key and for failures. */
  stdout = '';
  stderr = '';
  /** Resolves once the process has exited and its output is read to the end. */
  private readonly closed: Promise<unknown>;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly baseUrl: string,
  ) {
    this.closed = once(child, 'close');
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (this.stdout.length < OUTPUT_KEPT_CHARS) this.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-OUTPUT_KEPT_CHARS);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls GET /readyz until it answers 200; returns the milliseconds waited. */
  async waitUntilReady(timeoutMs: number): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < timeoutMs) {
      if (!this.running) {
        await this.closed;
        throw new Error(`${this.name} exited (${this.child.exitCode ?? this.child.signalCode}) before it was ready:\n${this.stderr || this.stdout}`);
      }
      const status = await fetch(`${this.baseUrl}/readyz`).then((response) => response.status, () => 0);
      if (status === 200) return performance.now() - started;
      await sleep(25);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.stderr || this.stdout}`);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const stuck = await Promise.race([this.closed.then(() => false), sleep(STOP_GRACE_MS).then(() => true)]);
    if (stuck) {
      this.child.kill('SIGKILL');
      await this.closed;
    }
  }
}

export async function startServer(name: string, script: string, env: NodeJS.ProcessEnv, cwd: string, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script], { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new ServerProcess(name, child, `http://127.0.0.1:${port}`);
}

/** Runs a node script to its end, `input` on its stdin; its stdout, or an error carrying its stderr. */
export async function runNodeScript(script: string, env: NodeJS.ProcessEnv, cwd: string, input = ''): Promise<string> {
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${script} failed (exit ${code}): ${stderr.slice(-2000)}`);
  return stdout;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
