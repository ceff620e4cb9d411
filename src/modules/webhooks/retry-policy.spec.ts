import { retryScheduleMs } from '../../config/retry-schedule';
import { retryDelayMs } from './retry-policy';

describe('retryDelayMs', () => {
  const schedule = retryScheduleMs('5s,5m,30m,2h,5h,10h,10h');

  it('reads the Standard Webhooks schedule', () => {
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('waits the step of the failed attempt, within ±10 %', () => {
    expect(retryDelayMs(1, schedule, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(1, schedule, () => 0)).toBe(4_500);
    expect(retryDelayMs(2, schedule, () => 1)).toBe(330_000);
    expect(retryDelayMs(7, schedule, () => 0.5)).toBe(36_000_000);
  });

  it('gives up after the last step', () => {
    expect(retryDelayMs(8, schedule)).toBeUndefined();
  });

  it('refuses a malformed schedule', () => {
    expect(() => retryScheduleMs('5s,,5m')).toThrow();
    expect(() => retryScheduleMs('5 seconds')).toThrow();
    expect(retryScheduleMs('200ms, 1s')).toEqual([200, 1000]);
  });
});
