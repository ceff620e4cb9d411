import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { AppError } from '../errors/app-error';
import { dateTimeInstant, readDateTime } from './date-time';
import { DateTimeField } from './fields';
import { validationExceptionFactory } from './validation-exception.factory';

describe('readDateTime', () => {
  it.each([
    ['2026-01-31T09:00:00Z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T10:30:00+01:30', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T00:00:00-09:00', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31t09:00:00z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T09:00:00.5Z', '2026-01-31T09:00:00.500Z'],
    ['2026-01-31T09:00:00.123456789Z', '2026-01-31T09:00:00.123Z'],
    ['2028-02-29T23:59:59.999Z', '2028-02-29T23:59:59.999Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['1970-01-01T01:00:00+01:00', '1970-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59-23:59', '+010000-01-01T23:58:59.000Z'],
  ])('reads %s as the instant %s', (text, iso) => {
    expect((readDateTime(text) as Date).toISOString()).toBe(iso);
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-31T24:00:00Z',
    '2026-01-31T09:60:00Z',
    '2026-12-31T23:59:60Z',
    '2026-01-31T09:00:00+24:00',
    '2026-01-31T09:00:00+01:60',
    '2026-01-31',
    '2026-01-31T09:00:00',
    '2026-01-31T09:00Z',
    '2026-01-31 09:00:00Z',
    '+010000-01-01T00:00:00Z',
    '2026-01-31T09:00:00.Z',
    ' 2026-01-31T09:00:00Z',
    '',
  ])('refuses %j as no real instant (invalid_format)', (text) => {
    expect(readDateTime(text)).toEqual({ reason: 'invalid_format', message: expect.stringContaining('real instant') });
  });

  it.each(['1969-12-31T23:59:59.999Z', '1970-01-01T00:59:59+01:00', '0001-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '0069-06-01T00:00:00Z', '0099-12-31T23:59:59Z'])(
    'refuses %s, before the first instant a v7 id can hold (invalid_value)',
    (text) => {
      expect(readDateTime(text)).toEqual({ reason: 'invalid_value', message: 'must not be before 1970-01-01T00:00:00.000Z' });
    },
  );

  it('allows the latest instant four digits of year can write, well within what a v7 id can hold', () => {
    expect(readDateTime('9999-12-31T23:59:59.999-23:59')).toBeInstanceOf(Date);
  });

  it('gives the instant of a validated value, and throws for any other', () => {
    expect(dateTimeInstant('2026-01-31T09:00:00+01:00').toISOString()).toBe('2026-01-31T08:00:00.000Z');
    expect(() => dateTimeInstant('1969-12-31T23:59:59Z')).toThrow(RangeError);
    expect(() => dateTimeInstant('2026-02-30T00:00:00Z')).toThrow(RangeError);
  });
});

class Filter {
  @DateTimeField()
  since?: string;
}

async function failure(body: object): Promise<{ field: string; reason: string } | undefined> {
  const errors = await validate(plainToInstance(Filter, body));
  if (errors.length === 0) return undefined;
  return (validationExceptionFactory(errors) as AppError).details;
}

describe('DateTimeField', () => {
  it('accepts a real instant and leaves the value as sent', async () => {
    expect(await failure({ since: '2026-01-31T09:00:00+01:00' })).toBeUndefined();
    expect(plainToInstance(Filter, { since: '2026-01-31T09:00:00+01:00' }).since).toBe('2026-01-31T09:00:00+01:00');
  });

  it.each([
    ['2026-02-30T00:00:00Z', 'invalid_format'],
    ['2026-01-31T24:00:00Z', 'invalid_format'],
    ['1969-12-31T23:59:59Z', 'invalid_value'],
    ['0000-01-01T00:00:00Z', 'invalid_value'],
    [5, 'invalid_type'],
  ])('refuses %j: %s', async (since, reason) => {
    expect(await failure({ since })).toEqual({ field: 'since', reason });
  });

  it('says what is wrong in the detail', async () => {
    const errors = await validate(plainToInstance(Filter, { since: '1969-12-31T23:59:59Z' }));
    expect(validationExceptionFactory(errors).detail).toBe('since: must not be before 1970-01-01T00:00:00.000Z');
  });
});
