import type { Machine } from './environment';
import { microseconds, mib, ratio, type Check, type EmbeddedResult, type MirroredOperation, type ScenarioRuns, type ScenarioSummary, type Side } from './results';
import { isServiceOnly, SCENARIOS } from './scenarios';
import type { Settings } from './settings';
import type { StatementCount } from './statements';

export interface Report {
  startedAt: Date;
  minutes: number;
  commit: string;
  settings: Settings;
  machine: Machine;
  postgresVersion: string;
  versions: Record<string, string>;
  outcomes: ScenarioRuns[];
  summaries: ScenarioSummary[];
  peakRssMiB: Partial<Record<Side, number>>;
  embedded: EmbeddedResult | undefined;
  mirroredOperations: MirroredOperation[];
  /** Counted on a scratch database after the load; empty when they could not be (a failure says why). */
  statements: StatementCount[];
  parityDifferences: string[];
  checks: Check[];
  failures: string[];
}

/**
 * The report's page in docs/ (and its chart's, with .svg): benchmarks.md directly on PostgreSQL,
 * benchmarks-pgbouncer.md through the pooler, so that each run keeps the other's figures.
 */
export function reportName(settings: Settings): string {
  return settings.pooler === 'pgbouncer' ? 'benchmarks-pgbouncer' : 'benchmarks';
}

/** The report's page, written whole by every run. */
export function markdown(report: Report): string {
  const { settings, machine } = report;
  const met = report.checks.filter((check) => check.ok).length;
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${report.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC at commit ${report.commit}`,
    `(${report.minutes.toFixed(1)} minutes in all). Rerun it rather than editing this page.`,
    '',
    `**Targets: ${met} of ${report.checks.length} met.**`,
    '',
    `![Service / lean baseline ratios per scenario](${reportName(settings)}.svg)`,
    '',
    ...(report.failures.length > 0 ? ['Failures during the run:', '', ...report.failures.map((failure) => `- ${oneLine(failure)}`), ''] : []),
    '## Service against the lean baseline (PostgreSQL)',
    '',
    `Medians over ${settings.pairs} pair(s) of ${settings.durationSeconds}-second runs, ${settings.connections} keep-alive connections;`,
    ...(settings.pooler === 'pgbouncer'
      ? [
          `both sides through one PgBouncer in transaction mode (\`BENCH_POOLER=pgbouncer\`, LISTEN on \`DATABASE_DIRECT_URL\`, ${
            settings.poolerPreparedStatements > 0
              ? `\`max_prepared_statements = ${settings.poolerPreparedStatements}\`: named statements kept`
              : 'unnamed statements: `DATABASE_PREPARED_STATEMENTS=0`'
          }); the direct figures are in [benchmarks.md](benchmarks.md);`,
        ]
      : []),
    'a ratio is service / lean, computed pair by pair, and its median is shown.',
    '',
    '| scenario | req/s service / lean | ratio | p50 ms service / lean | p99 ms service / lean | p99 ratio | CPU µs/req service / lean | CPU ratio | PostgreSQL CPU µs/req service / lean | PostgreSQL CPU ratio | non-2xx service / lean | RSS after, MiB service / lean |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.summaries
      .filter((s) => !isServiceOnly(s.scenario))
      .map((s) =>
        [
          s.title,
          pair(s.service.requestsPerSecond, s.lean.requestsPerSecond, 0),
          ratio(s.throughputRatio),
          pair(s.service.p50Ms, s.lean.p50Ms, 1),
          pair(s.service.p99Ms, s.lean.p99Ms, 1),
          ratio(s.p99Ratio),
          pair(s.service.cpuUsPerRequest, s.lean.cpuUsPerRequest, 0),
          ratio(s.cpuRatio),
          pair(s.service.databaseCpuUsPerRequest, s.lean.databaseCpuUsPerRequest, 0),
          ratio(s.databaseCpuRatio),
          `${s.service.non2xx + s.service.errors} / ${s.lean.non2xx + s.lean.errors}`,
          pair(s.service.rssAfterMiB, s.lean.rssAfterMiB, 0),
        ].join(' | '),
      ).map((row) => `| ${row} |`),
    '',
    `Peak RSS over the whole benchmark (VmHWM of one process per side that served every scenario): service ${mib(report.peakRssMiB.service ?? NaN)}, lean ${mib(report.peakRssMiB.lean ?? NaN)}.`,
    '',
    ...mirroredOperationsSection(report.mirroredOperations),
    ...statementsSection(report.statements),
    ...embeddedSection(report.embedded),
    '## Targets',
    '',
    '| check | measured | target | |',
    '|---|---:|---:|---|',
    ...report.checks.map((check) => `| ${check.what} | ${check.measured} | ${check.target} | ${check.ok ? 'ok' : '**MISSED**'} |`),
    '',
    ...(report.parityDifferences.length > 0
      ? ['Differences between the answers of the service and of the lean baseline:', '', ...report.parityDifferences.map((d) => `- ${oneLine(d)}`), '']
      : []),
    '## Scenarios',
    '',
    '| scenario | requests |',
    '|---|---|',
    ...SCENARIOS.filter((scenario) => settings.scenarios.includes(scenario.name)).map((scenario) => `| ${scenario.title} | ${scenario.description} |`),
    '',
    ...METHOD,
    '## Machine and versions',
    '',
    `- ${machine.cpuCount} CPUs (${machine.cpuModel}), ${machine.memoryGiB.toFixed(1)} GiB memory, Linux ${machine.kernel};`,
    `  load average ${machine.loadAverage.toFixed(2)} when the run started (the machine may be shared).`,
    `- PostgreSQL ${report.postgresVersion}; ${Object.entries(report.versions).map(([name, version]) => `${name} ${version}`).join(', ')}.`,
    '',
    '## Every run',
    '',
    '| scenario | pair | side | req/s | p50 ms | p99 ms | CPU µs/req | PostgreSQL CPU µs/req | non-2xx | statuses |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...report.outcomes.flatMap((outcome) =>
      outcome.runs.map((run) =>
        `| ${outcome.scenario} | ${run.pair + 1} | ${run.side} | ${run.load.requestsPerSecond.toFixed(0)} | ${run.load.p50Ms} | ${run.load.p99Ms} | ${run.cpuUsPerRequest.toFixed(0)} | ${microseconds(run.databaseCpuUsPerRequest)} | ${run.load.non2xx + run.load.errors} | ${Object.entries(run.load.statusCounts).map(([status, count]) => `${status}×${count}`).join(' ')} |`,
      ),
    ),
    '',
  ];
  return lines.join('\n');
}

function mirroredOperationsSection(operations: MirroredOperation[]): string[] {
  if (operations.length === 0) return [];
  const count = (value: number) => (Number.isFinite(value) ? String(value) : 'n/a');
  return [
    '## Directory and SCIM operations beside the operations they mirror (the service, same run)',
    '',
    'The mirror is measured in the operation\'s own pairs (its req/s: those runs) and the ratio is the median of the pairs\' ratios; department create, whose runs each need an organization of their own, is taken from its own scenario.',
    '',
    '| operation | req/s | mirrors | its req/s | throughput ratio | target | CPU µs/req operation / mirrored | statements per request operation / mirrored |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
    ...operations.map((operation) =>
      [
        operation.summary.title,
        operation.summary.service.requestsPerSecond.toFixed(0),
        operation.mirroredTitle,
        operation.mirroredService.requestsPerSecond.toFixed(0),
        ratio(operation.throughputRatio),
        `≥ ${operation.minThroughputRatio}`,
        pair(operation.summary.service.cpuUsPerRequest, operation.mirroredService.cpuUsPerRequest, 0),
        `${operation.statements.map(({ count: statements }) => count(statements)).join(' + ')} / ${count(operation.mirroredStatements)}`,
      ].join(' | '),
    ).map((row) => `| ${row} |`),
    '',
  ];
}

function statementsSection(statements: StatementCount[]): string[] {
  if (statements.length === 0) return [];
  return [
    '## Statements per request',
    '',
    'Counted in PostgreSQL\'s statement log by `scripts/statements-per-request.mjs` after the load (a scratch',
    'database with `log_statement = all`, one request at a time, warm; BEGIN and COMMIT count).',
    '',
    '| request | status | statements | server connections |',
    '|---|---:|---:|---:|',
    ...statements.map((row) => `| ${row.request} | ${row.status} | ${row.statements} | ${row.connections} |`),
    '',
  ];
}

function embeddedSection(embedded: EmbeddedResult | undefined): string[] {
  if (embedded === undefined) return ['## Embedded default', '', 'Not measured (BENCH_EMBEDDED=0).', ''];
  const seconds = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(1)} s`);
  return [
    '## Embedded default (no DATABASE_URL, a new data directory)',
    '',
    '| ready after | peak RSS once started | peak RSS after metering load | metering req/s | p50 / p99 ms | CPU µs/req |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${seconds(embedded.readySeconds)} | ${mib(embedded.peakRssAfterStartMiB ?? NaN)} | ${mib(embedded.peakRssAfterLoadMiB ?? NaN)} | ${
      embedded.load ? embedded.load.requestsPerSecond.toFixed(0) : 'n/a'
    } | ${embedded.load ? `${embedded.load.p50Ms} / ${embedded.load.p99Ms}` : 'n/a'} | ${embedded.cpuUsPerRequest?.toFixed(0) ?? 'n/a'} |`,
    '',
    ...(embedded.error ? [`The embedded measurement failed: ${oneLine(embedded.error)}`, ''] : []),
  ];
}

const METHOD = [
  '## Method',
  '',
  '- **Two servers, each its own process on its own fresh PostgreSQL database**, created for the run',
  '  (`<prefix><side>_<pid>`) and dropped at its end, both seeded with the same rows by plain SQL: one',
  '  organization with its subscription (anchored on a 31st), an API key with every scope and 100',
  '  expert suites with their market items and 100 top-level departments; plus one organization and',
  '  key per create run.',
  '  - the service: its shipped start command (`npm start`, which the image\'s ENV and CMD repeat, V8',
  '    options and `MALLOC_ARENA_MAX` included) with `DATABASE_URL`, `LOG_LEVEL=warn`,',
  '    `RATE_LIMIT_PER_MINUTE=0`, migrated first by `node dist/src/database/migrate.main.js`;',
  '  - the lean baseline: `bench/lean/`, bare `node:http` + `pg` (a pool of 10, the service\'s',
  '    default), the same operations with the same answers and the leanest SQL the',
  '    guarantees allow: verified keys cached in the process and dropped on every',
  '    `api_key_revoked` notification or listener reconnect; the metering policy read at most',
  '    once per organization every 5 s; PATCH as one compare-and-set `UPDATE … RETURNING` joined',
  '    to the market item (a read only when nothing changed); create as one transaction of',
  '    claim (`INSERT … ON CONFLICT`, taking over only an expired record), per-parent advisory',
  '    lock, insert with `max(order) + 1`, stored answer; a replay is the claim and one read;',
  '    reads as one indexed statement each (a page: keyset on `("order", id)`, one row more than',
  '    the page). Every write (department create, suite PATCH, move, user create and PATCH,',
  '    member PUT and DELETE) writes what the service\'s does in the same statement as the',
  '    change: the audit event (action, resource, actor, request id, revisions, `changes` with',
  '    old values; the suite PATCH\'s old value computed in its SET list into `last_change`) and',
  '    one webhook delivery per endpoint subscribed to it (an `INSERT … SELECT` over the',
  '    organization\'s endpoints, with `pg_notify` from its RETURNING), so that a write\'s ratios',
  '    measure the service\'s own overhead, not the audit trail.',
  '    Never part of the product: `src/` does not import it and the Docker image leaves it out.',
  '- **Parity probes first**: the same short sequence of requests (metering, PATCH changed and',
  '  unchanged, unknown suite, create, replay, key reused, name conflict, no Idempotency-Key, a',
  '  department and a page of departments, unknown department, bad page_size, unknown API key, a',
  '  move there and back, a user create and PATCH, member PUT and DELETE with and without a',
  '  primary department) goes to both servers; statuses, body fields, error codes and the headers',
  '  that matter must agree, and each side\'s replay must be byte-for-byte its first answer. Two',
  '  webhook endpoints are subscribed on both sides for the probes only (one to `*`, one to an',
  '  action no probe writes), and afterwards the audit events both sides wrote must agree as sets:',
  '  action, resource type, resource id (ids each side made itself aside), actor type, revisions,',
  '  `changes` and deliveries per event; each event id\'s time must be its `occurred_at`.',
  '- **Load**: autocannon in a third process (`bench/load.ts`), keep-alive connections; it and',
  '  PostgreSQL share the machine\'s cores with the server under test, on both sides alike. Per',
  '  scenario, a warm-up run on each side (not counted), then pairs of runs, alternating which',
  '  side goes first, so that drift on a shared machine falls on both sides alike.',
  '- **Per run**: req/s = completed responses / duration; p50 and p99 latency from autocannon;',
  '  non-2xx and connection errors; the server\'s CPU per request = (utime + stime) of its',
  '  process (all threads, `/proc/PID/stat`, in clock ticks of `getconf CLK_TCK`) over the run,',
  '  divided by the responses. PostgreSQL\'s CPU per request, beside it: the same reading over the',
  '  backends that serve the side\'s database (their pids from `pg_stat_activity`, read before and',
  '  after the run; a backend that ends during the run loses its share), n/a when PostgreSQL runs on',
  '  another machine. Background processes (WAL writer, checkpointer) are counted on neither side.',
  '- **Memory**: each side is one process for the whole benchmark (no restart between',
  '  scenarios), so its VmHWM (`/proc/PID/status`) at the end is the peak over the whole',
  '  benchmark; "RSS after" is VmRSS once a scenario\'s runs are done, to show growth.',
  '- **Embedded default**: the same command without `DATABASE_URL` on a new temporary',
  '  `DATA_DIR`: time from spawn until `GET /readyz` answers 200 (the build of `npm start` not',
  '  counted), VmHWM once the demo organization is seeded, then a metering load with the demo',
  '  key it prints on first start, and VmHWM again.',
  '- **Targets** live in `bench/targets.ts`: reads (the cached metering policy and the GETs) at',
  '  least 0.6 of the lean baseline\'s throughput and at most 2× its p99 and CPU per request;',
  '  writes (`WRITE_SCENARIOS` in `bench/settings.ts`), which do the same database work on both',
  '  sides, at least 1.0× its throughput and at most 1.5× its p99 and CPU per request.',
  '  `npm run bench` prints each as ok or MISSED and',
  '  exits 1 when one is missed, after writing this page and `docs/benchmarks.svg`. Speed is',
  '  never asserted in the test suite.',
  '',
  '## Running it',
  '',
  '`npm run bench` (builds first). PostgreSQL must be reachable; settings by environment:',
  '',
  '| variable | default | |',
  '|---|---|---|',
  '| `BENCH_POSTGRES_URL` | `postgresql://root@127.0.0.1:5432/postgres` | a maintenance database; the run creates and drops its own databases beside it |',
  '| `BENCH_DATABASE_PREFIX` | `wsa_bench_` | prefix of those databases\' names |',
  '| `BENCH_DURATION_SECONDS` | 5 | one measured run |',
  '| `BENCH_WARMUP_SECONDS` | 3 | the warm-up run per scenario and side |',
  '| `BENCH_PAIRS` | 5 | pairs of runs per scenario |',
  '| `BENCH_CONNECTIONS` | 32 | keep-alive connections of the load generator |',
  '| `BENCH_SCENARIOS` | all | comma-separated subset: metering, patch-hot, patch-spread, create, replay, move, get-department, list-departments, user-create, user-patch, member, user-lookup, scim-lookup, scim-patch (the last three run on the service alone: the lean baseline has no SCIM; each is judged against the operation it mirrors, measured in the same pairs) |',
  '| `BENCH_EMBEDDED` | 1 | 0 skips the embedded-default measurement |',
  '| `BENCH_POOLER` | `none` | `pgbouncer`: both sides reach PostgreSQL through one PgBouncer in transaction mode (`scripts/pgbouncer.sh`, Debian\'s `pgbouncer` package), with `DATABASE_PREPARED_STATEMENTS=0` and `DATABASE_DIRECT_URL` to the server; the report goes to `docs/benchmarks-pgbouncer.md`. Without `BENCH_SCENARIOS`, the write scenarios only (patch-hot, patch-spread, create, replay, move, user-create, user-patch, member), and no embedded measurement |',
  '| `PGBOUNCER_MAX_PREPARED_STATEMENTS` | 0 | with `BENCH_POOLER=pgbouncer`: PgBouncer\'s `max_prepared_statements` (1.21 or later; `PGBOUNCER=<program>` picks that build); above 0 both sides keep their named statements |',
  '| `BENCH_NODE` | `lts` | the Node.js everything runs on: `lts` is the line the container image ships (24, fetched once from the npm registry by `scripts/lts-node.sh`), `current` the one running `npm run bench`, or a path to a node binary |',
  '| `BENCH_SERVICE_NODE_ARGS` | (none) | extra node options for the service process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load |',
  '| `BENCH_LEAN_NODE_ARGS` | (none) | the same for the lean baseline\'s process (a profile of each side in one run; `scripts/cpu-profile-layers.mjs` sums either by layer) |',
  '| `BENCH_AGAINST` | (none) | the directory of another built checkout (e.g. a `git worktree` of an earlier commit): its service takes the lean baseline\'s place, so the ratios compare two commits run pair by pair; the run then prints its results and writes no report |',
  '',
];

function pair(service: number, lean: number, digits: number): string {
  const format = (value: number) => (Number.isFinite(value) ? String(Number(value.toFixed(digits))) : 'n/a');
  return `${format(service)} / ${format(lean)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 400);
}
