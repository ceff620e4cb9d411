import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ratioChart } from './chart';
import { databaseUrl, dropDatabase, makeFixture, serverVersion, type Fixture } from './databases';
import { measureEmbedded } from './embedded';
import { describeMachine, gitCommit, packageVersions, shippedStartCommand } from './environment';
import { measure, type ServerDatabase } from './measure';
import { compareAnswers } from './parity';
import { memory } from './proc-stats';
import { startPgBouncer, type PgBouncer } from './pooler';
import { startServer, type ServerProcess } from './processes';
import { markdown, reportName } from './report';
import { prepareDatabase, startService } from './service';
import { checkMirroredOperations, checkTargets, microseconds, mirroredOperations, ratio, summarize, type Run, type ScenarioRuns, type ScenarioSummary, type Side } from './results';
import { isServiceOnly, type LoadJob, type ScenarioName } from './scenarios';
import { readSettings, type Settings } from './settings';
import { countStatements, type StatementCount } from './statements';
import { MIRRORED_OPERATIONS } from './targets';

const ROOT = join(__dirname, '..', '..');
const SHIPPED = shippedStartCommand(ROOT);
const SCRIPTS = {
  service: join(ROOT, SHIPPED.script),
  migrate: join(ROOT, 'dist/src/database/migrate.main.js'),
  lean: join(ROOT, 'dist/bench/lean/server.js'),
  load: join(ROOT, 'dist/bench/load.js'),
};
const SIDES: Side[] = ['service', 'lean'];
const SUITE_COUNT = 100;
const DEPARTMENT_COUNT = 100;
const READY_TIMEOUT_MS = 60_000;

type Servers = Record<Side, ServerProcess>;

/**
 * `npm run bench` (docs/benchmarks.md): the service against the lean baseline on PostgreSQL,
 * then the embedded default on its own; checks the targets, writes docs/benchmarks.md and
 * docs/benchmarks.svg (docs/benchmarks-pgbouncer.* through the pooler), and exits 1 when a target is missed.
 */
async function main(): Promise<number> {
  const startedAt = new Date();
  const settings = readSettings(process.env);
  const machine = describeMachine();
  const fixture = makeFixture(SUITE_COUNT, DEPARTMENT_COUNT, settings.pairs + 1);
  const workDirectory = mkdtempSync(join(tmpdir(), 'wsa-bench-'));
  const databases: Record<Side, string> = {
    service: `${settings.databasePrefix}service_${process.pid}`,
    lean: `${settings.databasePrefix}lean_${process.pid}`,
  };
  const failures: string[] = [];
  const outcomes: ScenarioRuns[] = [];
  const peakRssMiB: Partial<Record<Side, number>> = {};
  let parityDifferences: string[] = [];
  let postgresVersion = 'unknown';
  const started: ServerProcess[] = [];
  let pgbouncer: PgBouncer | undefined;

  try {
    postgresVersion = await serverVersion(settings.postgresUrl);
    const against = settings.against === undefined ? undefined : checkout(settings.against);
    await prepareDatabase(SCRIPTS.migrate, settings.postgresUrl, databases.service, fixture, workDirectory);
    await prepareDatabase(against?.migrate ?? SCRIPTS.migrate, settings.postgresUrl, databases.lean, fixture, workDirectory);
    const url = (side: Side) => databaseUrl(settings.postgresUrl, databases[side]);
    // Both sides through one PgBouncer in transaction mode, as docs/scaling.md sets a deployment up:
    // a direct connection for LISTEN, and unnamed statements unless the pooler keeps prepared ones.
    if (settings.pooler === 'pgbouncer') pgbouncer = await startPgBouncer(ROOT, settings.postgresUrl);
    const serviceDatabase = (side: Side): Record<string, string> =>
      pgbouncer
        ? { DATABASE_URL: databaseUrl(pgbouncer.url, databases[side]), DATABASE_DIRECT_URL: url(side), ...(settings.poolerPreparedStatements > 0 ? {} : { DATABASE_PREPARED_STATEMENTS: '0' }) }
        : { DATABASE_URL: url(side) };
    const servers: Servers = {
      service: await startService('service', ROOT, serviceDatabase('service'), workDirectory, settings.serviceNodeArgs),
      lean: against
        ? await startService(`service at ${settings.against}`, against.root, serviceDatabase('lean'), workDirectory, settings.serviceNodeArgs)
        : await startServer('lean baseline', SCRIPTS.lean, { ...process.env, ...serviceDatabase('lean') }, workDirectory, settings.leanNodeArgs),
    };
    started.push(servers.service, servers.lean);
    for (const side of SIDES) await servers[side].waitUntilReady(READY_TIMEOUT_MS);

    parityDifferences = await compareAnswers(
      { service: { baseUrl: servers.service.baseUrl, databaseUrl: url('service') }, lean: { baseUrl: servers.lean.baseUrl, databaseUrl: url('lean') } },
      fixture,
    );
    for (const difference of parityDifferences) console.log(`parity: ${difference}`);
    for (const scenario of settings.scenarios) {
      const outcome = await runScenario(scenario, servers, fixture, settings, (side) => ({ serverUrl: settings.postgresUrl, database: databases[side] }));
      if (outcome.error) failures.push(`${scenario}: ${outcome.error}`);
      outcomes.push(outcome);
    }
    for (const side of SIDES) if (servers[side].running) peakRssMiB[side] = memory(servers[side].pid).peakRssMiB;
  } catch (error) {
    failures.push(message(error));
  } finally {
    for (const server of started) await server.stop();
    await pgbouncer?.stop().catch((error: unknown) => failures.push(`stop pgbouncer: ${message(error)}`));
    for (const side of SIDES) await dropDatabase(settings.postgresUrl, databases[side]).catch((error: unknown) => failures.push(`drop ${databases[side]}: ${message(error)}`));
    rmSync(workDirectory, { recursive: true, force: true });
  }

  if (settings.against !== undefined) return printComparison(outcomes.map(summarize), settings.against, failures);
  const embedded = settings.embedded
    ? await measureEmbedded({ serviceScript: SCRIPTS.service, loadScript: SCRIPTS.load, ...settings, serviceEnvironment: SHIPPED.environment, serviceNodeArgs: [...SHIPPED.nodeOptions, ...settings.serviceNodeArgs] })
    : undefined;
  if (embedded?.error) failures.push(`embedded: ${embedded.error}`);
  const statements: StatementCount[] = await countStatements(ROOT, settings.postgresUrl).catch((error: unknown) => {
    failures.push(`statements per request not counted (scripts/statements-per-request.mjs reads the server's log: run beside PostgreSQL): ${message(error)}`);
    return [];
  });

  const summaries = outcomes.map(summarize);
  const mirrored = mirroredOperations(summaries, statements);
  const checks = [...checkTargets(summaries, peakRssMiB, embedded, parityDifferences), ...checkMirroredOperations(mirrored)];
  const commit = gitCommit(ROOT);
  const minutes = (Date.now() - startedAt.getTime()) / 60_000;
  const page = reportName(settings);
  writeFileSync(
    join(ROOT, `docs/${page}.md`),
    markdown({ startedAt, minutes, commit, settings, machine, postgresVersion, versions: packageVersions(ROOT), outcomes, summaries, peakRssMiB, embedded, mirroredOperations: mirrored, statements, parityDifferences, checks, failures }),
  );
  const subtitle = `commit ${commit}, ${startedAt.toISOString().slice(0, 10)}; medians of ${settings.pairs} pairs of ${settings.durationSeconds} s runs, ${settings.connections} connections, ${machine.cpuCount} CPUs`;
  writeFileSync(join(ROOT, `docs/${page}.svg`), ratioChart(summaries.filter((summary) => !isServiceOnly(summary.scenario)), subtitle));

  console.log('');
  for (const check of checks) console.log(`${check.ok ? 'ok    ' : 'MISSED'} ${check.what}: ${check.measured} (target ${check.target})`);
  for (const failure of failures) console.log(`FAILED ${failure}`);
  console.log(`\n${checks.filter((check) => check.ok).length} of ${checks.length} targets met in ${minutes.toFixed(1)} minutes; wrote docs/${page}.md and docs/${page}.svg`);
  return checks.every((check) => check.ok) && failures.length === 0 ? 0 : 1;
}

/** BENCH_AGAINST: another built checkout, whose migrations and service replace the lean side's. */
function checkout(directory: string): { root: string; migrate: string } {
  const root = realpathSync(directory);
  const migrate = join(root, 'dist/src/database/migrate.main.js');
  if (!existsSync(migrate)) throw new Error(`BENCH_AGAINST: ${root} has no built service (run npm ci or npm run build there)`);
  return { root, migrate };
}

/** The before/after table of a BENCH_AGAINST run: this checkout / the other, medians of the pairs' ratios. */
function printComparison(summaries: ScenarioSummary[], against: string, failures: string[]): number {
  console.log(`\nthis checkout / ${against} (medians of per-pair ratios)`);
  console.log('scenario          req/s ratio  CPU µs/req (this / other)  CPU ratio  PostgreSQL µs/req (this / other)  PostgreSQL ratio  p99 ratio');
  for (const s of summaries) {
    const cpu = `${s.service.cpuUsPerRequest.toFixed(0)} / ${s.lean.cpuUsPerRequest.toFixed(0)}`;
    const database = `${microseconds(s.service.databaseCpuUsPerRequest)} / ${microseconds(s.lean.databaseCpuUsPerRequest)}`;
    console.log(
      `${s.scenario.padEnd(17)} ${s.throughputRatio.toFixed(2).padStart(11)}  ${cpu.padStart(25)}  ${s.cpuRatio.toFixed(2).padStart(9)}  ${database.padStart(32)}  ${ratio(s.databaseCpuRatio).padStart(16)}  ${s.p99Ratio.toFixed(2).padStart(9)}`,
    );
  }
  for (const failure of failures) console.log(`FAILED ${failure}`);
  return failures.length === 0 ? 0 : 1;
}

/**
 * A warm-up run on each side, then pairs of measured runs, alternating which side goes first. A
 * scenario that mirrors another (a directory write, SCIM) has a run of the mirrored scenario on the
 * service in each of its pairs too, so that both meet the same database on the same machine load.
 */
async function runScenario(scenario: ScenarioName, servers: Servers, fixture: Fixture, settings: Settings, database: (side: Side) => ServerDatabase): Promise<ScenarioRuns> {
  const outcome: ScenarioRuns = { scenario, runs: [], rssAfterMiB: {} };
  // Each create run gets its own organization (the same one on both sides), so that every run
  // starts from no siblings: max(order) over a growing sibling list would favour the slower side.
  const job = (name: ScenarioName, side: Side, run: number, durationSeconds: number): Omit<LoadJob, 'baseUrl'> => ({
    scenario: name,
    token: name === 'create' ? fixture.createTenants[run + 1].token : fixture.main.token,
    suiteIds: fixture.suiteIds,
    departmentIds: fixture.departmentIds,
    userIds: fixture.userIds,
    runTag: `${name}-${side}-${run}`,
    durationSeconds,
    connections: settings.connections,
  });
  // The mirrored scenario runs in the same pairs, on the service, but for department create: each
  // of its runs needs an organization of its own (above), so its own scenario's runs stand for it.
  const mirror = MIRRORED_OPERATIONS.find((operation) => operation.scenario === scenario)?.mirrors;
  const sides: Side[] = isServiceOnly(scenario) ? ['service'] : SIDES;
  const members: { name: ScenarioName; side: Side; into: Run[] }[] = [
    ...sides.map((side) => ({ name: scenario, side, into: outcome.runs })),
    ...(mirror === undefined || mirror === 'create' ? [] : [{ name: mirror, side: 'service' as const, into: (outcome.mirrorRuns = []) }]),
  ];
  try {
    for (const member of members) await measure(servers[member.side], job(member.name, member.side, -1, settings.warmupSeconds), SCRIPTS.load);
    for (let pair = 0; pair < settings.pairs; pair++) {
      for (const member of pair % 2 === 0 ? members : [...members].reverse()) {
        const { side } = member;
        const run = { side, pair, ...(await measure(servers[side], job(member.name, side, pair, settings.durationSeconds), SCRIPTS.load, database(side))) };
        member.into.push(run);
        const { load } = run;
        const label = member.name === scenario ? side : `${side}, ${member.name} beside it`;
        console.log(
          `${scenario.padEnd(13)} pair ${pair + 1} ${label.padEnd(8)} ${load.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${load.p50Ms} ms  p99 ${load.p99Ms} ms  ${run.cpuUsPerRequest.toFixed(0)} µs CPU/req  PostgreSQL ${microseconds(run.databaseCpuUsPerRequest)} µs/req  non-2xx ${load.non2xx}  errors ${load.errors}`,
        );
      }
    }
  } catch (error) {
    outcome.error = message(error);
  }
  for (const side of SIDES) if (servers[side].running) outcome.rssAfterMiB[side] = memory(servers[side].pid).rssMiB;
  return outcome;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The benchmark measures on the Node.js the container image ships (BENCH_NODE=lts, the default),
 * or the machine's (BENCH_NODE=current), or a given binary: when that is not the Node running
 * this script, the whole run starts again under it, so servers, load and migrations share it.
 */
function nodeToRunOn(choice: string): string {
  if (choice === 'current') return process.execPath;
  if (choice === 'lts') return join(execFileSync('bash', [join(ROOT, 'scripts/lts-node.sh')], { encoding: 'utf8' }).trim(), 'node');
  return choice;
}

function runOnChosenNode(): Promise<number> {
  const node = realpathSync(nodeToRunOn(process.env.BENCH_NODE || 'lts'));
  if (node === realpathSync(process.execPath)) return main();
  const child = spawn(node, [__filename], { stdio: 'inherit', env: { ...process.env, BENCH_NODE: 'current' } });
  return once(child, 'close').then(([code]) => (typeof code === 'number' ? code : 1));
}

runOnChosenNode().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
