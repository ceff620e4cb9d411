import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface StatementCount {
  request: string;
  status: number;
  statements: number;
  connections: number;
}

/**
 * Statements per request as PostgreSQL's own log counts them (scripts/statements-per-request.mjs:
 * a scratch database with log_statement = all, one request at a time, warm). It reads the server's
 * log file, so it works only beside the server; the caller reports why when it cannot.
 */
export async function countStatements(root: string, postgresUrl: string): Promise<StatementCount[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/statements-per-request.mjs')], {
    cwd: root,
    env: { ...process.env, PG_URL: postgresUrl },
    timeout: 120_000,
  });
  return stdout
    .split('\n')
    .map((line) => /^\| (.+?) \| (\d+) \| (\d+) \| \d+ \| (\d+) \|$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, request, status, statements, connections]) => ({ request, status: Number(status), statements: Number(statements), connections: Number(connections) }));
}
