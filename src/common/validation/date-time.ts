import { applyDecorators } from '@nestjs/common';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { UUID_V7_MAX_MILLIS } from '../ids/uuid-v7';

// RFC 3339: a date and time with an explicit offset (a bare date or local time would depend on the machine).
const DATE_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d{1,9}))?(?:Z|(?<sign>[+-])(?<offsetHours>\d{2}):(?<offsetMinutes>\d{2}))$/i;

/**
 * The instants a date-time input may name: those a UUID v7 can be built from, as the audit
 * filters build one (an id's 48 bits of milliseconds count from 1970).
 */
const EARLIEST_DATE_TIME = new Date(0);
const LATEST_DATE_TIME = new Date(UUID_V7_MAX_MILLIS);

export interface DateTimeProblem {
  reason: 'invalid_format' | 'invalid_value';
  message: string;
}

const NOT_AN_INSTANT: DateTimeProblem = {
  reason: 'invalid_format',
  message: 'must be an ISO 8601 date-time with a time zone that names a real instant, e.g. 2026-01-31T09:00:00Z',
};

/**
 * The one reading of a date-time input (API parameters and CLI options alike): the instant it names,
 * or why it names none the service can use. A date the calendar does not have (30 February, hour 24,
 * second 60) is not rolled over into the next one, as `new Date` would.
 */
export function readDateTime(text: string): Date | DateTimeProblem {
  const groups = DATE_TIME.exec(text)?.groups;
  const instant = groups && instantOf(groups);
  if (!instant) return NOT_AN_INSTANT;
  if (instant < EARLIEST_DATE_TIME) return { reason: 'invalid_value', message: `must not be before ${EARLIEST_DATE_TIME.toISOString()}` };
  if (instant > LATEST_DATE_TIME) return { reason: 'invalid_value', message: `must not be after ${LATEST_DATE_TIME.toISOString()}` };
  return instant;
}

/** The instant of a date-time that was validated already (a DTO field). */
export function dateTimeInstant(text: string): Date {
  const read = readDateTime(text);
  if (read instanceof Date) return read;
  throw new RangeError(`Not a valid date-time: ${text}`);
}

const FIELDS = ['year', 'month', 'day', 'hour', 'minute', 'second', 'offsetHours', 'offsetMinutes'];

function instantOf(groups: Record<string, string | undefined>): Date | undefined {
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = FIELDS.map((name) => Number(groups[name] ?? 0));
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  // Not Date.UTC, which reads the years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  // A day the month does not have (or month 0 or 13) rolled over into another month.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const offset = (groups.sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const millis = Number((groups.fraction ?? '').padEnd(3, '0').slice(0, 3));
  return new Date(date.getTime() + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millis);
}

/**
 * The validator of every date-time field: not a real instant is `invalid_format`, an instant the
 * service cannot store `invalid_value`, each with its own message.
 */
export function DateTime(options?: ValidationOptions) {
  return applyDecorators(dateTimeRule('dateTime', 'invalid_format', options), dateTimeRule('dateTimeInRange', 'invalid_value', options));
}

// Each rule fails only for its own reason; a value that is no string is left to IsString.
function dateTimeRule(name: string, reason: DateTimeProblem['reason'], options?: ValidationOptions): PropertyDecorator {
  const problemOf = (value: unknown) => {
    const read = typeof value === 'string' ? readDateTime(value) : undefined;
    return read instanceof Date ? undefined : read;
  };
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => problemOf(value)?.reason !== reason,
        defaultMessage: (args) => problemOf(args?.value)?.message ?? NOT_AN_INSTANT.message,
      },
    },
    { ...options, context: { reason } },
  );
}
