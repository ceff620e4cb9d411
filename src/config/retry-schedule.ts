import { ValidateBy } from 'class-validator';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const STEP = /^(\d{1,9})(ms|s|m|h)$/;

/** `5s,5m,2h` → [5000, 300000, 7200000]; undefined when a step is malformed or the list is empty. */
function parseRetrySchedule(value: string): number[] | undefined {
  const steps = value.split(',').map((step) => step.trim());
  const delays: number[] = [];
  for (const step of steps) {
    const match = STEP.exec(step);
    if (!match) return undefined;
    delays.push(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  }
  return delays.length > 0 && delays.length <= 20 ? delays : undefined;
}

/** The waits of a valid WEBHOOK_RETRY_SCHEDULE in milliseconds. */
export function retryScheduleMs(value: string): number[] {
  const delays = parseRetrySchedule(value);
  if (!delays) throw new Error(`Not a retry schedule: ${value}`);
  return delays;
}

export function IsRetrySchedule() {
  return ValidateBy({
    name: 'isRetrySchedule',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseRetrySchedule(value) !== undefined,
      defaultMessage: () => 'must be 1 to 20 comma-separated waits, each a whole number with ms, s, m or h (5s,5m,30m,2h)',
    },
  });
}
