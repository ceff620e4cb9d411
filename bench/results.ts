import { isServiceOnly, SCENARIOS, type LoadResult, type ScenarioName } from './scenarios';
import type { StatementCount } from './statements';
import { MIRRORED_OPERATIONS, ratioTargetsOf, TARGETS } from './targets';

export type Side = 'service' | 'lean';

export interface Run {
  side: Side;
  pair: number;
  load: LoadResult;
  cpuUsPerRequest: number;
  databaseCpuUsPerRequest: number;
}

export interface ScenarioRuns {
  scenario: ScenarioName;
  runs: Run[];
  /**
   * The scenario's mirrored scenario (MIRRORED_OPERATIONS), run on the service in the same pairs:
   * both meet the database in the same state (the same rows, as many dead ones) and the same load.
   */
  mirrorRuns?: Run[];
  /** VmRSS right after the scenario's last run. */
  rssAfterMiB: Partial<Record<Side, number>>;
  error?: string;
}

export interface SideSummary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  /** PostgreSQL's backends serving the side's database (NaN when PostgreSQL is not on this machine). */
  databaseCpuUsPerRequest: number;
  /** Summed over the measured runs, like errors. */
  non2xx: number;
  errors: number;
  rssAfterMiB: number;
}

export interface ScenarioSummary {
  scenario: ScenarioName;
  title: string;
  /** Measured runs of the service (a service-only scenario has no pairs). */
  runs: number;
  pairs: number;
  service: SideSummary;
  lean: SideSummary;
  /** Medians over the pairs of service / lean, each pair's ratio computed on its own. */
  throughputRatio: number;
  p99Ratio: number;
  cpuRatio: number;
  databaseCpuRatio: number;
  /** The mirrored scenario's runs in this scenario's pairs, and the median of the pairs' throughput ratios (this / mirrored). */
  interleavedMirror?: { service: SideSummary; throughputRatio: number };
  error?: string;
}

export interface EmbeddedResult {
  readySeconds?: number;
  /** VmHWM once started and seeded, then after the metering load. */
  peakRssAfterStartMiB?: number;
  peakRssAfterLoadMiB?: number;
  load?: LoadResult;
  cpuUsPerRequest?: number;
  error?: string;
}

export interface Check {
  what: string;
  measured: string;
  target: string;
  ok: boolean;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarize(outcome: ScenarioRuns): ScenarioSummary {
  const side = (name: Side, of = outcome.runs): SideSummary => {
    const runs = of.filter((run) => run.side === name);
    return {
      requestsPerSecond: median(runs.map((run) => run.load.requestsPerSecond)),
      p50Ms: median(runs.map((run) => run.load.p50Ms)),
      p99Ms: median(runs.map((run) => run.load.p99Ms)),
      cpuUsPerRequest: median(runs.map((run) => run.cpuUsPerRequest)),
      databaseCpuUsPerRequest: median(runs.map((run) => run.databaseCpuUsPerRequest)),
      non2xx: runs.reduce((sum, run) => sum + run.load.non2xx, 0),
      errors: runs.reduce((sum, run) => sum + run.load.errors, 0),
      rssAfterMiB: outcome.rssAfterMiB[name] ?? NaN,
    };
  };
  const pairs = [...new Set(outcome.runs.map((run) => run.pair))]
    .map((pair) => ({
      service: outcome.runs.find((run) => run.pair === pair && run.side === 'service'),
      lean: outcome.runs.find((run) => run.pair === pair && run.side === 'lean'),
    }))
    .filter((pair): pair is { service: Run; lean: Run } => pair.service !== undefined && pair.lean !== undefined);
  const ratio = (of: (run: Run) => number) => median(pairs.map((pair) => of(pair.service) / of(pair.lean)));
  return {
    scenario: outcome.scenario,
    title: SCENARIOS.find((scenario) => scenario.name === outcome.scenario)!.title,
    runs: outcome.runs.filter((run) => run.side === 'service').length,
    pairs: pairs.length,
    service: side('service'),
    lean: side('lean'),
    throughputRatio: ratio((run) => run.load.requestsPerSecond),
    p99Ratio: ratio((run) => run.load.p99Ms),
    cpuRatio: ratio((run) => run.cpuUsPerRequest),
    databaseCpuRatio: ratio((run) => run.databaseCpuUsPerRequest),
    ...(outcome.mirrorRuns === undefined ? {} : { interleavedMirror: interleavedMirror(outcome.runs, outcome.mirrorRuns, side('service', outcome.mirrorRuns)) }),
    error: outcome.error,
  };
}

function interleavedMirror(runs: Run[], mirrorRuns: Run[], service: SideSummary): ScenarioSummary['interleavedMirror'] {
  const ratios = runs.filter((run) => run.side === 'service').flatMap((run) => {
    const mirror = mirrorRuns.find((other) => other.pair === run.pair);
    return mirror === undefined ? [] : [run.load.requestsPerSecond / mirror.load.requestsPerSecond];
  });
  return { service, throughputRatio: median(ratios) };
}

/**
 * Every target of the issue against what was measured; NaN (a failed measurement) is never ok.
 * Scenarios not run and the embedded default when skipped (undefined) are not checked.
 */
export function checkTargets(
  summaries: ScenarioSummary[],
  peakRssMiB: Partial<Record<Side, number>>,
  embedded: EmbeddedResult | undefined,
  parityDifferences: string[],
): Check[] {
  const checks: Check[] = [
    {
      what: 'the lean baseline answers like the service (parity probes)',
      measured: parityDifferences.length === 0 ? 'same answers' : `${parityDifferences.length} difference(s)`,
      target: 'same answers',
      ok: parityDifferences.length === 0,
    },
  ];
  for (const summary of summaries) {
    const at = (what: string) => `${summary.title}: ${what}`;
    if (isServiceOnly(summary.scenario)) {
      // No lean counterpart: judged against the scenario it mirrors (checkMirroredOperations).
      const failed = summary.service.non2xx + summary.service.errors;
      checks.push({ what: at('service non-2xx + errors'), measured: String(failed), target: `${TARGETS.maxNon2xx}`, ok: summary.runs > 0 && failed <= TARGETS.maxNon2xx });
      continue;
    }
    const targets = ratioTargetsOf(summary.scenario);
    checks.push(
      { what: at('throughput service / lean'), measured: ratio(summary.throughputRatio), target: `≥ ${targets.minThroughputRatio}`, ok: summary.throughputRatio >= targets.minThroughputRatio },
      { what: at('p99 service / lean'), measured: ratio(summary.p99Ratio), target: `≤ ${targets.maxP99Ratio}`, ok: summary.p99Ratio <= targets.maxP99Ratio },
      { what: at('CPU per request service / lean'), measured: ratio(summary.cpuRatio), target: `≤ ${targets.maxCpuPerRequestRatio}`, ok: summary.cpuRatio <= targets.maxCpuPerRequestRatio },
      { what: at('service non-2xx + errors'), measured: String(summary.service.non2xx + summary.service.errors), target: `${TARGETS.maxNon2xx}`, ok: summary.pairs > 0 && summary.service.non2xx + summary.service.errors <= TARGETS.maxNon2xx },
      { what: at('lean baseline non-2xx + errors'), measured: String(summary.lean.non2xx + summary.lean.errors), target: '0', ok: summary.pairs > 0 && summary.lean.non2xx + summary.lean.errors === 0 },
    );
  }
  const servicePeak = peakRssMiB.service ?? NaN;
  const leanPeak = peakRssMiB.lean ?? NaN;
  checks.push({
    what: 'service peak RSS over the whole benchmark (PostgreSQL), against the lean baseline\'s on the same Node',
    measured: mib(servicePeak),
    target: `≤ ${mib(leanPeak)}`,
    ok: servicePeak <= leanPeak,
  });
  if (embedded === undefined) return checks;
  checks.push(
    {
      what: 'embedded default: ready after start on a new data directory',
      measured: embedded.readySeconds === undefined ? 'n/a' : `${embedded.readySeconds.toFixed(1)} s`,
      target: `≤ ${TARGETS.maxEmbeddedReadySeconds} s`,
      ok: (embedded.readySeconds ?? NaN) <= TARGETS.maxEmbeddedReadySeconds,
    },
    {
      what: 'embedded default: peak RSS (start and metering load)',
      measured: mib(embedded.peakRssAfterLoadMiB ?? NaN),
      target: `≤ ${TARGETS.maxEmbeddedPeakRssMiB} MiB`,
      ok: (embedded.peakRssAfterLoadMiB ?? NaN) <= TARGETS.maxEmbeddedPeakRssMiB,
    },
  );
  return checks;
}

/** A directory or SCIM operation beside the operation it mirrors, both the service's, in the same run. */
export interface MirroredOperation {
  summary: ScenarioSummary;
  mirroredTitle: string;
  /** The mirrored operation's runs: those in the operation's own pairs where it has them (every mirror but department create), else its own scenario's. */
  mirroredService: SideSummary;
  /** service req/s of the operation over that of the mirrored one: the median of the pairs' ratios when interleaved. */
  throughputRatio: number;
  minThroughputRatio: number;
  statements: { request: string; count: number }[];
  mirroredStatements: number;
}

export function mirroredOperations(summaries: ScenarioSummary[], statements: StatementCount[]): MirroredOperation[] {
  const summaryOf = (name: ScenarioName) => summaries.find((summary) => summary.scenario === name);
  const count = (request: string) => statements.find((row) => row.request === request)?.statements ?? NaN;
  return MIRRORED_OPERATIONS.flatMap(({ scenario, mirrors, requests, mirroredRequest, minThroughputRatio }) => {
    const summary = summaryOf(scenario);
    const mirrored = summary?.interleavedMirror ?? summaryOf(mirrors);
    if (summary === undefined || mirrored === undefined) return [];
    return [
      {
        summary,
        mirroredTitle: summaryOf(mirrors)?.title ?? SCENARIOS.find((known) => known.name === mirrors)!.title,
        mirroredService: mirrored.service,
        throughputRatio: summary.interleavedMirror?.throughputRatio ?? summary.service.requestsPerSecond / mirrored.service.requestsPerSecond,
        minThroughputRatio,
        statements: requests.map((request) => ({ request, count: count(request) })),
        mirroredStatements: count(mirroredRequest),
      },
    ];
  });
}

/** Throughput at least the operation's ratio of the mirrored one's, and no more statements (NaN, not counted, is never ok). */
export function checkMirroredOperations(operations: MirroredOperation[]): Check[] {
  return operations.flatMap((operation) => [
    {
      what: `${operation.summary.title}: service throughput, against ${operation.mirroredTitle}`,
      measured: ratio(operation.throughputRatio),
      target: `≥ ${operation.minThroughputRatio}`,
      ok: operation.throughputRatio >= operation.minThroughputRatio,
    },
    ...operation.statements.map(({ request, count }) => ({
      what: `${request}: statements per request, against ${operation.mirroredTitle}`,
      measured: Number.isFinite(count) ? String(count) : 'n/a',
      target: `≤ ${Number.isFinite(operation.mirroredStatements) ? operation.mirroredStatements : 'n/a'}`,
      ok: count <= operation.mirroredStatements,
    })),
  ]);
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : 'n/a';
}

/** A CPU time per request, or n/a where it could not be measured (PostgreSQL on another machine). */
export function microseconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : 'n/a';
}

export function mib(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)} MiB` : 'n/a';
}
