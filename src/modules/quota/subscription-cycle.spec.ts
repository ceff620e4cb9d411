import { nextResetAfter } from './subscription-cycle';

const at = (iso: string) => new Date(iso);

describe('nextResetAfter', () => {
  it.each([
    // [case, anchor, now, expected next reset]
    ['anchor on the 31st resets on Feb 29 in a leap year', '2024-01-31T23:30:00.000Z', '2024-02-10T00:00:00.000Z', '2024-02-29T23:30:00.000Z'],
    ['anchor on the 31st resets on Feb 28 in a common year', '2023-01-31T23:30:00.000Z', '2023-02-10T00:00:00.000Z', '2023-02-28T23:30:00.000Z'],
    ['after the clamped Feb reset the cycle returns to the 31st (no drift)', '2023-01-31T23:30:00.000Z', '2023-03-01T00:00:00.000Z', '2023-03-31T23:30:00.000Z'],
    ['anchor on the 31st, 30-day month', '2023-01-31T23:30:00.000Z', '2023-04-01T00:00:00.000Z', '2023-04-30T23:30:00.000Z'],
    ['anchor on the 30th resets on Feb 28', '2023-01-30T08:00:00.000Z', '2023-02-01T00:00:00.000Z', '2023-02-28T08:00:00.000Z'],
    ['anchor on the 30th resets on Mar 30 after Feb', '2023-01-30T08:00:00.000Z', '2023-03-01T00:00:00.000Z', '2023-03-30T08:00:00.000Z'],
    ['anchor on the 29th resets on Feb 28 in a common year', '2022-12-29T10:00:00.000Z', '2023-02-01T00:00:00.000Z', '2023-02-28T10:00:00.000Z'],
    ['anchor on the 29th resets on Feb 29 in a leap year', '2023-12-29T10:00:00.000Z', '2024-02-01T00:00:00.000Z', '2024-02-29T10:00:00.000Z'],
    ['leap-day anchor resets on Mar 29', '2024-02-29T12:00:00.000Z', '2024-03-01T00:00:00.000Z', '2024-03-29T12:00:00.000Z'],
    ['leap-day anchor resets on Feb 28 in a common year', '2024-02-29T12:00:00.000Z', '2025-02-01T00:00:00.000Z', '2025-02-28T12:00:00.000Z'],
    ['leap-day anchor keeps the 29th after a clamped Feb', '2024-02-29T12:00:00.000Z', '2025-03-01T00:00:00.000Z', '2025-03-29T12:00:00.000Z'],
    ['leap-day anchor resets on Feb 29 of the next leap year', '2024-02-29T12:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-02-29T12:00:00.000Z'],
    ['2100 is not a leap year', '2096-02-29T12:00:00.000Z', '2100-02-01T00:00:00.000Z', '2100-02-28T12:00:00.000Z'],
    ['2000 is a leap year', '1999-01-31T00:00:00.000Z', '2000-02-01T00:00:00.000Z', '2000-02-29T00:00:00.000Z'],
    ['anchor in the future: the anchor itself is the next reset', '2024-03-15T09:00:00.000Z', '2024-01-01T00:00:00.000Z', '2024-03-15T09:00:00.000Z'],
    ['anchor one millisecond in the future', '2024-03-15T09:00:00.001Z', '2024-03-15T09:00:00.000Z', '2024-03-15T09:00:00.001Z'],
    ['now exactly at the anchor: the next month', '2024-03-15T09:00:00.000Z', '2024-03-15T09:00:00.000Z', '2024-04-15T09:00:00.000Z'],
    ['now exactly at a clamped reset: the next month', '2024-01-31T23:30:00.000Z', '2024-02-29T23:30:00.000Z', '2024-03-31T23:30:00.000Z'],
    ['now exactly at a later reset: the next month', '2024-01-15T00:00:00.000Z', '2024-06-15T00:00:00.000Z', '2024-07-15T00:00:00.000Z'],
    ['now one millisecond before a reset: that reset', '2024-01-15T00:00:00.000Z', '2024-06-14T23:59:59.999Z', '2024-06-15T00:00:00.000Z'],
    ['now later in the reset month than the reset: the next month', '2001-05-15T06:00:00.000Z', '2026-11-23T11:00:00.000Z', '2026-12-15T06:00:00.000Z'],
    ['December to January across the year', '2023-12-31T23:59:59.999Z', '2024-12-31T23:59:59.999Z', '2025-01-31T23:59:59.999Z'],
    ['anchor at the first of a month, now at the end of it', '2024-03-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z', '2024-04-01T00:00:00.000Z'],
    ['milliseconds of the anchor are kept', '2024-01-10T01:02:03.456Z', '2024-05-20T00:00:00.000Z', '2024-06-10T01:02:03.456Z'],
  ])('%s', (_case, anchor, now, expected) => {
    expect(nextResetAfter(at(anchor), at(now)).toISOString()).toBe(expected);
  });

  it.each([
    // Anchor Jan 31 23:30: the reset in each month of a common and a leap year.
    ['2023-01-01', '2023-01-31'], ['2023-02-01', '2023-02-28'], ['2023-03-01', '2023-03-31'], ['2023-04-01', '2023-04-30'],
    ['2023-05-01', '2023-05-31'], ['2023-06-01', '2023-06-30'], ['2023-07-01', '2023-07-31'], ['2023-08-01', '2023-08-31'],
    ['2023-09-01', '2023-09-30'], ['2023-10-01', '2023-10-31'], ['2023-11-01', '2023-11-30'], ['2023-12-01', '2023-12-31'],
    ['2024-02-01', '2024-02-29'],
  ])('anchor on the 31st, now %s: resets on the month end %s', (nowDay, resetDay) => {
    const anchor = at('2022-12-31T23:30:00.000Z');
    expect(nextResetAfter(anchor, at(`${nowDay}T00:00:00.000Z`)).toISOString()).toBe(`${resetDay}T23:30:00.000Z`);
  });

  it('always answers a reset strictly after now, at most 31 days later, at the anchor time of day', () => {
    const anchors = ['2024-01-31T23:30:00.000Z', '2024-02-29T00:00:00.000Z', '2023-05-30T12:15:00.000Z', '2023-07-01T00:00:00.000Z'].map(at);
    const failures: string[] = [];
    let checked = 0;
    for (const anchor of anchors) {
      // Every 11 hours over two years: every month end is crossed at many times of day.
      for (let now = anchor.getTime(); now < anchor.getTime() + 2 * 366 * 86_400_000; now += 11 * 3_600_000) {
        const next = nextResetAfter(anchor, new Date(now));
        const problems = [
          next.getTime() <= now && 'not after now',
          next.getTime() - now > 31 * 86_400_000 && 'more than 31 days later',
          next.toISOString().slice(10) !== anchor.toISOString().slice(10) && 'another time of day',
        ].filter(Boolean);
        if (problems.length > 0) failures.push(`anchor ${anchor.toISOString()}, now ${new Date(now).toISOString()}: ${next.toISOString()} is ${problems.join(', ')}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(6000);
    expect(failures).toEqual([]);
  });
});
