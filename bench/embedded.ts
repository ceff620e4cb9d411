import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { measure } from './measure';
import { memory } from './proc-stats';
import { startServer, type ServerProcess } from './processes';
import type { EmbeddedResult } from './results';

const DEMO_KEY = /wsk_[0-9A-Za-z]{40}/;
const START_TIMEOUT_MS = 120_000;

export interface EmbeddedSettings {
  serviceScript: string;
  loadScript: string;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  /** Environment variables the shipped start command sets (package.json's `start`). */
  serviceEnvironment: Record<string, string>;
  /** Node options the service runs with (the shipped start command's, and any BENCH_SERVICE_NODE_ARGS). */
  serviceNodeArgs: string[];
}

/**
 * The default a new user gets: the service with no DATABASE_URL on a new data directory.
 * Time until /readyz answers 200, VmHWM once the demo organization is seeded, then metering
 * under load with the demo key it prints on its first start.
 */
export async function measureEmbedded(settings: EmbeddedSettings): Promise<EmbeddedResult> {
  const directory = mkdtempSync(join(tmpdir(), 'wsa-bench-embedded-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...settings.serviceEnvironment,
    DATA_DIR: join(directory, 'data'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
  };
  delete env.DATABASE_URL;
  const result: EmbeddedResult = {};
  let server: ServerProcess | undefined;
  try {
    server = await startServer('embedded service', settings.serviceScript, env, directory, settings.serviceNodeArgs);
    result.readySeconds = (await server.waitUntilReady(START_TIMEOUT_MS)) / 1000;
    const token = await demoKey(server);
    result.peakRssAfterStartMiB = memory(server.pid).peakRssMiB;
    const job = { scenario: 'metering' as const, token, suiteIds: [], departmentIds: [], userIds: [], runTag: 'embedded', connections: settings.connections };
    await measure(server, { ...job, durationSeconds: settings.warmupSeconds }, settings.loadScript);
    const measured = await measure(server, { ...job, durationSeconds: settings.durationSeconds }, settings.loadScript);
    result.load = measured.load;
    result.cpuUsPerRequest = measured.cpuUsPerRequest;
    result.peakRssAfterLoadMiB = memory(server.pid).peakRssMiB;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  return result;
}

/** The service prints it after it is ready, once the demo organization is created. */
async function demoKey(server: ServerProcess): Promise<string> {
  for (let waited = 0; waited < START_TIMEOUT_MS; waited += 50) {
    const key = DEMO_KEY.exec(server.stdout)?.[0];
    if (key !== undefined) return key;
    if (!server.running) break;
    await sleep(50);
  }
  throw new Error(`no demo key on the embedded service's stdout:\n${server.stdout}${server.stderr}`);
}
