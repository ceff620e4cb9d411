import type { ScenarioName } from './scenarios';
import { WRITE_SCENARIOS } from './settings';

/** What a scenario's service / lean ratios must meet, pair by pair medians. */
export interface RatioTargets {
  minThroughputRatio: number;
  maxP99Ratio: number;
  maxCpuPerRequestRatio: number;
}

/**
 * The benchmark's targets, in one place (2 cores, PostgreSQL, 32 connections, median over pairs).
 * Ratios are service / lean baseline, pair by pair; memory is VmHWM in MiB (kB / 1024). The
 * service's peak RSS over the benchmark has no number of its own: it must stay at or below the
 * lean baseline's, measured on the same Node in the same run.
 */
export const TARGETS = {
  /** Reads: the cached metering policy and the GETs (issue 9). */
  reads: { minThroughputRatio: 0.6, maxP99Ratio: 2, maxCpuPerRequestRatio: 2 } satisfies RatioTargets,
  /**
   * Writes (WRITE_SCENARIOS): the lean baseline writes the same audit event and outbox rows in the
   * same statement, so the service may cost no more than its own overhead (issue 38).
   */
  writes: { minThroughputRatio: 1, maxP99Ratio: 1.5, maxCpuPerRequestRatio: 1.5 } satisfies RatioTargets,
  maxNon2xx: 0,
  maxEmbeddedPeakRssMiB: 400,
  maxEmbeddedReadySeconds: 10,
  /** A directory write's service throughput over that of the write it mirrors, in the same run. */
  minMirroredThroughputRatio: 0.9,
  /** A SCIM operation's throughput over that of the REST operation it mirrors, in the same run. */
  minScimThroughputRatio: 0.85,
} as const;

export function ratioTargetsOf(scenario: ScenarioName): RatioTargets {
  return WRITE_SCENARIOS.includes(scenario) ? TARGETS.writes : TARGETS.reads;
}
