import { UUID_V7_MAX_MILLIS, uuidV7, uuidV7Floor, uuidV7Millis } from './uuid-v7';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidV7', () => {
  it('is a version 7, variant 10 UUID', () => {
    for (let i = 0; i < 200; i++) expect(uuidV7(new Date())).toMatch(UUID_V7);
  });

  it('carries the time in its first 48 bits', () => {
    const at = new Date('2026-11-26T16:30:00.123Z');
    const id = uuidV7(at);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at.getTime());
  });

  it('sorts by time as text, and the floor of a millisecond sorts below its ids', () => {
    const earlier = new Date('2026-11-26T16:30:00.000Z');
    const later = new Date(earlier.getTime() + 1);
    const ids = Array.from({ length: 50 }, () => uuidV7(later));
    for (const id of ids) {
      expect(uuidV7(earlier) < id).toBe(true);
      expect(uuidV7Floor(later) <= id).toBe(true);
      expect(uuidV7Floor(later) > uuidV7(earlier)).toBe(true);
    }
    expect(uuidV7Floor(later)).toMatch(UUID_V7);
  });

  it('is unique across many calls in one millisecond', () => {
    const at = new Date();
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidV7(at)));
    expect(ids.size).toBe(10_000);
  });

  it('gives back the milliseconds an id was made at', () => {
    const at = new Date('2026-11-26T16:30:00.123Z');
    expect([uuidV7Millis(uuidV7(at)), uuidV7Millis(uuidV7Floor(at))]).toEqual([at.getTime(), at.getTime()]);
  });

  it('holds every millisecond from 1970 to the last its 48 bits can', () => {
    expect(uuidV7Floor(new Date(0))).toBe('00000000-0000-7000-8000-000000000000');
    expect(uuidV7Floor(new Date(UUID_V7_MAX_MILLIS))).toBe('ffffffff-ffff-7000-8000-000000000000');
    expect(uuidV7Millis(uuidV7(new Date(UUID_V7_MAX_MILLIS)))).toBe(UUID_V7_MAX_MILLIS);
  });

  it.each([
    ['before 1970', new Date(-1)],
    ['in the year 0', new Date('0000-01-01T00:00:00Z')],
    ['past its 48 bits', new Date(UUID_V7_MAX_MILLIS + 1)],
    ['no time at all', new Date(Number.NaN)],
  ])('refuses an instant %s rather than build a bad id', (_case, at) => {
    expect(() => uuidV7Floor(at)).toThrow(RangeError);
    expect(() => uuidV7(at)).toThrow(RangeError);
  });
});
