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
  /** Reads: the cached metering policy and the GETs. */
  reads: { minThroughputRatio: 0.6, maxP99Ratio: 2, maxCpuPerRequestRatio: 2 } satisfies RatioTargets,
  /**
   * Writes (WRITE_SCENARIOS): the lean baseline writes the same audit event and outbox rows in the
   * same statement, so the service may cost no more than its own overhead.
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

/**
 * The directory's and SCIM's operations, each beside the operation it mirrors: its service throughput
 * must reach its ratio of that one's in the same run, and each of its requests may use no more
 * statements than the mirrored request (the rows of scripts/statements-per-request.mjs). The mirror
 * runs in the operation's own pairs, but for department create (bench/run.ts).
 */
export const MIRRORED_OPERATIONS: {
  scenario: ScenarioName;
  mirrors: ScenarioName;
  requests: string[];
  mirroredRequest: string;
  minThroughputRatio: number;
}[] = [
  { scenario: 'move', mirrors: 'create', requests: ['PATCH /departments/{id} (move)'], mirroredRequest: 'POST /departments (new key)', minThroughputRatio: TARGETS.minMirroredThroughputRatio },
  { scenario: 'user-create', mirrors: 'create', requests: ['POST /users (new key, one department)'], mirroredRequest: 'POST /departments (new key)', minThroughputRatio: TARGETS.minMirroredThroughputRatio },
  {
    scenario: 'member',
    mirrors: 'create',
    requests: ['PUT /departments/{id}/members/{user_id}', 'DELETE /departments/{id}/members/{user_id}'],
    mirroredRequest: 'POST /departments (new key)',
    minThroughputRatio: TARGETS.minMirroredThroughputRatio,
  },
  { scenario: 'user-patch', mirrors: 'patch-spread', requests: ['PATCH /users/{id}'], mirroredRequest: 'PATCH /expert-suites/{id}', minThroughputRatio: TARGETS.minMirroredThroughputRatio },
  // SCIM is a second door to the same directory: it may cost little over the REST operation it mirrors.
  { scenario: 'scim-lookup', mirrors: 'user-lookup', requests: ['GET /scim/v2/Users?filter=userName eq'], mirroredRequest: 'GET /users?user_name=', minThroughputRatio: TARGETS.minScimThroughputRatio },
  { scenario: 'scim-patch', mirrors: 'user-patch', requests: ['PATCH /scim/v2/Users/{id}'], mirroredRequest: 'PATCH /users/{id}', minThroughputRatio: TARGETS.minScimThroughputRatio },
];
