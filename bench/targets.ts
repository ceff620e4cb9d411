/**
 * The targets of issue 9, in one place (2 cores, PostgreSQL, 32 connections, median over pairs).
 * Ratios are service / lean baseline, pair by pair; memory is VmHWM in MiB (kB / 1024).
 */
export const TARGETS = {
  minThroughputRatio: 0.6,
  maxP99Ratio: 2,
  maxCpuPerRequestRatio: 2,
  maxNon2xx: 0,
  maxServicePeakRssMiB: 150,
  maxEmbeddedPeakRssMiB: 400,
  maxEmbeddedReadySeconds: 10,
} as const;
