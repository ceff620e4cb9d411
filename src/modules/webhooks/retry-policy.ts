const JITTER = 0.1;

/** A factor of 1 ± 10 % at random, so that waits started together do not all end at once. */
export function jitterFactor(random: () => number = Math.random): number {
  return 1 - JITTER + 2 * JITTER * random();
}

/**
 * The wait before the next attempt after `attemptsMade` failed ones (the schedule's step for it,
 * ±10 % so that deliveries failed together do not all come back at once), or undefined when the
 * schedule is used up and the delivery has failed.
 */
export function retryDelayMs(attemptsMade: number, scheduleMs: readonly number[], random: () => number = Math.random): number | undefined {
  const wait = scheduleMs[attemptsMade - 1];
  if (wait === undefined) return undefined;
  return Math.round(wait * jitterFactor(random));
}
