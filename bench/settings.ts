import { SCENARIOS, type ScenarioName } from './scenarios';

export interface Settings {
  durationSeconds: number;
  warmupSeconds: number;
  pairs: number;
  connections: number;
  /** A PostgreSQL server's maintenance database; the benchmark creates and drops its own databases there. */
  postgresUrl: string;
  databasePrefix: string;
  scenarios: ScenarioName[];
  embedded: boolean;
  /** Extra node options for the service process only, such as `--cpu-prof --cpu-prof-dir=DIR` to profile it under load. */
  serviceNodeArgs: string[];
  /** The same for the lean baseline's process, to profile both sides in one run. */
  leanNodeArgs: string[];
  /**
   * `pgbouncer`: both sides reach PostgreSQL through one PgBouncer in transaction mode
   * (scripts/pgbouncer.sh), LISTEN on a direct connection.
   */
  pooler: 'none' | 'pgbouncer';
  /**
   * PgBouncer's `max_prepared_statements` (PGBOUNCER_MAX_PREPARED_STATEMENTS, read by
   * scripts/pgbouncer.sh too; PgBouncer 1.21 or later): above 0 the sides keep their named
   * statements through the pooler; 0 (Debian 12's 1.18 has no such setting) sends them unnamed.
   */
  poolerPreparedStatements: number;
  /**
   * Another checkout (built) whose service takes the lean baseline's place: a before/after
   * comparison of two commits in one run, pair by pair, on the same machine and load.
   */
  against?: string;
}

/** The scenarios that write: the default set when the service runs through a pooler. */
export const WRITE_SCENARIOS: ScenarioName[] = ['patch-hot', 'patch-spread', 'create', 'replay', 'move', 'user-create', 'user-patch', 'member'];

/** The benchmark's settings, from BENCH_* environment variables (docs/benchmarks.md lists them). */
export function readSettings(env: NodeJS.ProcessEnv): Settings {
  const number = (name: string, fallback: number, min: number) => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, got "${env[name]}"`);
    return value;
  };
  const known = SCENARIOS.map((scenario) => scenario.name);
  const pooler = env.BENCH_POOLER || 'none';
  if (pooler !== 'none' && pooler !== 'pgbouncer') throw new Error(`BENCH_POOLER must be pgbouncer or none, got "${pooler}"`);
  const scenarios = (env.BENCH_SCENARIOS ? env.BENCH_SCENARIOS.split(',').map((name) => name.trim()) : pooler === 'pgbouncer' ? WRITE_SCENARIOS : known) as ScenarioName[];
  const unknown = scenarios.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return {
    durationSeconds: number('BENCH_DURATION_SECONDS', 5, 1),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', 3, 1),
    pairs: Math.floor(number('BENCH_PAIRS', 5, 1)),
    connections: Math.floor(number('BENCH_CONNECTIONS', 32, 1)),
    postgresUrl: env.BENCH_POSTGRES_URL || 'postgresql://root@127.0.0.1:5432/postgres',
    databasePrefix: env.BENCH_DATABASE_PREFIX || 'wsa_bench_',
    scenarios,
    embedded: env.BENCH_EMBEDDED !== '0' && pooler === 'none',
    serviceNodeArgs: nodeArgs(env.BENCH_SERVICE_NODE_ARGS),
    leanNodeArgs: nodeArgs(env.BENCH_LEAN_NODE_ARGS),
    pooler,
    poolerPreparedStatements: Math.floor(number('PGBOUNCER_MAX_PREPARED_STATEMENTS', 0, 0)),
    against: env.BENCH_AGAINST || undefined,
  };
}

function nodeArgs(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter((arg) => arg !== '');
}
