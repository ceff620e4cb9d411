import { backendCpu, backendCpuUsed } from './database-cpu';
import { cpuMicroseconds } from './proc-stats';
import { runNodeScript, type ServerProcess } from './processes';
import type { LoadJob, LoadResult } from './scenarios';

export interface Measurement {
  load: LoadResult;
  cpuUsPerRequest: number;
  /** The CPU of the server's PostgreSQL backends per request; NaN when PostgreSQL is not on this machine. */
  databaseCpuUsPerRequest: number;
}

/** Where the server's PostgreSQL database is, to count its backends' CPU too. */
export interface ServerDatabase {
  serverUrl: string;
  database: string;
}

/**
 * One load run against a server: the load generator's result, the server's CPU per request and,
 * when given its database, the CPU PostgreSQL spent on it per request.
 */
export async function measure(server: ServerProcess, job: Omit<LoadJob, 'baseUrl'>, loadScript: string, database?: ServerDatabase): Promise<Measurement> {
  if (!server.running) throw new Error(`${server.name} is not running:\n${server.stderr}`);
  const readDatabaseCpu = () => (database ? backendCpu(database.serverUrl, database.database) : Promise.resolve(undefined));
  const databaseBefore = await readDatabaseCpu();
  const cpuBefore = cpuMicroseconds(server.pid);
  const output = await runNodeScript(loadScript, process.env, process.cwd(), JSON.stringify({ ...job, baseUrl: server.baseUrl }));
  const cpuUsed = cpuMicroseconds(server.pid) - cpuBefore;
  const databaseAfter = await readDatabaseCpu();
  const load = JSON.parse(output) as LoadResult;
  const perRequest = (microseconds: number) => (load.requests > 0 ? microseconds / load.requests : NaN);
  return {
    load,
    cpuUsPerRequest: perRequest(cpuUsed),
    databaseCpuUsPerRequest: databaseBefore && databaseAfter ? perRequest(backendCpuUsed(databaseBefore, databaseAfter)) : NaN,
  };
}
