import { existsSync, readFileSync } from 'node:fs';
import { withClient } from './databases';
import { cpuMicroseconds } from './proc-stats';

/** CPU used so far (µs) by each PostgreSQL backend serving one database, by process id. */
export type BackendCpu = Map<number, number>;

/**
 * The backends of `database` as PostgreSQL lists them (pg_stat_activity), each with the CPU it has
 * used so far, read from /proc. Undefined when the server does not run on this machine (the
 * backend answering here is no postgres process of this machine), so that its CPU cannot be read.
 */
export async function backendCpu(serverUrl: string, database: string): Promise<BackendCpu | undefined> {
  return withClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ self: number; pids: number[] | null }>('SELECT pg_backend_pid() AS self, (SELECT array_agg(pid) FROM pg_stat_activity WHERE datname = $1) AS pids', [database]);
    // Checked while this connection's backend is still there.
    if (!isLocalPostgres(rows[0].self)) return undefined;
    const cpu: BackendCpu = new Map();
    for (const pid of rows[0].pids ?? []) {
      try {
        cpu.set(pid, cpuMicroseconds(pid));
      } catch {
        // The backend ended since it was listed: its CPU is gone with it.
      }
    }
    return cpu;
  });
}

/**
 * The CPU the database's backends used between two readings: all of it for a backend that started
 * in between (a new pooled connection), none for one that ended (lost with its /proc entry).
 */
export function backendCpuUsed(before: BackendCpu, after: BackendCpu): number {
  let used = 0;
  for (const [pid, microseconds] of after) used += microseconds - (before.get(pid) ?? 0);
  return used;
}

function isLocalPostgres(pid: number): boolean {
  const commandLine = `/proc/${pid}/cmdline`;
  return existsSync(commandLine) && readFileSync(commandLine, 'latin1').includes('postgres');
}
