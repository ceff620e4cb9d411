import { cpuMicroseconds } from './proc-stats';
import { runNodeScript, type ServerProcess } from './processes';
import type { LoadJob, LoadResult } from './scenarios';

export interface Measurement {
  load: LoadResult;
  cpuUsPerRequest: number;
}

/** One load run against a server: the load generator's result and the server's CPU per request. */
export async function measure(server: ServerProcess, job: Omit<LoadJob, 'baseUrl'>, loadScript: string): Promise<Measurement> {
  if (!server.running) throw new Error(`${server.name} is not running:\n${server.stderr}`);
  const cpuBefore = cpuMicroseconds(server.pid);
  const output = await runNodeScript(loadScript, process.env, process.cwd(), JSON.stringify({ ...job, baseUrl: server.baseUrl }));
  const cpuUsed = cpuMicroseconds(server.pid) - cpuBefore;
  const load = JSON.parse(output) as LoadResult;
  return { load, cpuUsPerRequest: load.requests > 0 ? cpuUsed / load.requests : NaN };
}
