import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedStartCommand } from '../../bench/environment';

const root = join(__dirname, '..', '..');
// The service as `npm start` and the image run it, V8 options included.
const shipped = shippedStartCommand(root);
export const startArgs = [...shipped.nodeOptions, join(root, shipped.script)];

export interface RunningService {
  process: ChildProcess;
  output: () => string;
  baseUrl: string;
}

/** Starts the built service on a free port and waits for its one readiness line (after the demo seed, if any). */
export async function startService(env: NodeJS.ProcessEnv): Promise<RunningService> {
  const child = spawn('node', startArgs, { env: { ...env, ...shipped.environment, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${output}`));
    }, 45_000);
    child.on('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
    const check = setInterval(() => {
      const match = /Swagger UI: (http:\/\/localhost:\d+)\/docs/.exec(output);
      if (match && output.includes('Ready: start-up complete')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve(match[1]);
      }
    }, 50);
  });
  return { process: child, output: () => output, baseUrl };
}

/** SIGTERM, as an orchestrator sends it: the service drains, closes the app and exits 0. */
export async function stopService(service: RunningService): Promise<NodeJS.Signals | number | null> {
  if (service.process.exitCode !== null) return service.process.exitCode;
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => service.process.once('exit', (code, signal) => resolve(signal ?? code)));
  service.process.kill('SIGTERM');
  return exited;
}

/** The environment of a first start on a new embedded database (a new data directory), as after a fresh clone. */
export function freshEmbeddedEnvironment(prefix: string): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', DATA_DIR: join(mkdtempSync(join(tmpdir(), prefix)), 'db'), LOG_LEVEL: 'log' };
}

/** The demo key the first start of an empty embedded database prints once. */
export function printedDemoKey(output: string): string {
  const match = /\n\s+(wsk_[0-9A-Za-z]{40})\n/.exec(output);
  if (!match) throw new Error(`no demo key in the output:\n${output}`);
  return match[1];
}
