import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgBouncer {
  /** postgresql://<user>@127.0.0.1:<port>/ (append a database name). */
  url: string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction pooling mode in front of the server of `postgresUrl`, started by
 * scripts/pgbouncer.sh as the URL's user (BENCH_POOLER=pgbouncer).
 */
export async function startPgBouncer(root: string, postgresUrl: string): Promise<PgBouncer> {
  const script = join(root, 'scripts/pgbouncer.sh');
  const server = new URL(postgresUrl);
  const env = { ...process.env, PG_HOST: server.hostname, PG_PORT: server.port || '5432', PG_USER: decodeURIComponent(server.username) || process.env.USER || 'postgres' };
  const { stdout } = await run('bash', [script, 'start'], { env });
  const directory = stdout.trim();
  return {
    url: readFileSync(join(directory, 'url'), 'utf8').trim(),
    stop: async () => {
      await run('bash', [script, 'stop', directory], { env });
    },
  };
}
