/**
 * The benchmark's targets, in one place (2 cores, PostgreSQL, 32 connections, median over pairs).
 * Ratios are service / lean baseline, pair by pair; memory is VmHWM in MiB (kB / 1024). The
 * service's peak RSS over the benchmark has no number of its own: it must stay at or below the
 * lean baseline's, measured on the same Node in the same run.
 */
export const TARGETS = {
  minThroughputRatio: 0.6,
  maxP99Ratio: 2,
  maxCpuPerRequestRatio: 2,
  maxNon2xx: 0,
  maxEmbeddedPeakRssMiB: 400,
  maxEmbeddedReadySeconds: 10,
  /** A directory write's service throughput over that of the write it mirrors, in the same run. */
  minMirroredThroughputRatio: 0.9,
  /** A SCIM operation's throughput over that of the REST operation it mirrors, in the same run. */
  minScimThroughputRatio: 0.85,
} as const;
