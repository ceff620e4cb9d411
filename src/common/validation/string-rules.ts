import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Trims a string before it is validated and stored; other types pass unchanged to their type rule. */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Writes a string in Unicode NFC before it is validated (limits count its code points) and stored. */
export const ToNfc = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.normalize('NFC') : value));

/** The uuid in `value`, lower-cased; undefined when `value` is not a uuid (in any case). */
export function lowerCaseUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return UUID.test(lower) ? lower : undefined;
}

/**
 * The one rule for uuid fields: any case is accepted and the value is lower-cased before anything
 * else sees it, so it is stored and returned lower-case. Anything else is invalid_format; when only
 * surrounding white space is wrong, the suggestion is the uuid without it.
 */
export function LowerCaseUuid(options?: ValidationOptions) {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => lowerCaseUuid(value) ?? value),
    ValidateBy(
      {
        name: 'lowerCaseUuid',
        validator: {
          validate: (value: unknown) => typeof value !== 'string' || UUID.test(value),
          defaultMessage: () => 'must be a uuid',
        },
      },
      { ...options, context: { reason: 'invalid_format', suggest: (value: unknown) => (typeof value === 'string' ? lowerCaseUuid(value.trim()) : undefined) } },
    ),
  );
}

/** An identifier stored exactly as sent may not start or end with white space; the suggestion is it trimmed. */
export function NoSurroundingWhitespace(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'noSurroundingWhitespace',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value === value.trim(),
        defaultMessage: () => 'must not start or end with white space',
      },
    },
    { ...options, context: { reason: 'invalid_format', suggest: (value: unknown) => (typeof value === 'string' ? value.trim() : undefined) } },
  );
}
