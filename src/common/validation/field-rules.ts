import { applyDecorators } from '@nestjs/common';
import { IsDefined, IsInt, Max, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import type { FieldRuleContext } from './validation-exception.factory';

const rule = (context: FieldRuleContext, options?: ValidationOptions): ValidationOptions => ({ ...options, context });

/** Length in Unicode code points, as the contract counts it (not UTF-16 units, not bytes). */
export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function truncateCodePoints(value: string, max: number): string {
  return Array.from(value).slice(0, max).join('');
}

/** At most `max` code points; the suggestion is the value cut to the limit. */
export function MaxCodePoints(max: number, options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || codePointLength(value) <= max,
        defaultMessage: () => `must be at most ${max} characters`,
      },
    },
    rule({ reason: 'too_long', suggest: (value) => (typeof value === 'string' ? truncateCodePoints(value, max) : undefined) }, options),
  );
}

/**
 * White space and the characters that show nothing: zero-width (U+200B–U+200D), direction marks
 * and overrides (U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), word joiner and invisible operators
 * (U+2060–U+2064), the byte order mark / zero-width no-break space (U+FEFF).
 */
const BLANK = /^[\s\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]*$/;

/** Empty, or nothing but white space and invisible characters: nothing a reader would see. */
export function isBlank(value: string): boolean {
  return BLANK.test(value);
}

/** Not blank (see isBlank). */
export function NotBlank(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !isBlank(value),
        defaultMessage: () => 'must not be blank',
      },
    },
    rule({ reason: 'must_not_be_blank' }, options),
  );
}

/** Present in the body with a value: absent and null both fail as `required`. */
export function Required(options?: ValidationOptions) {
  return IsDefined(rule({ reason: 'required' }, { message: 'is required', ...options }));
}

/**
 * The largest integer a JSON number holds exactly (2^53 − 1). A larger one reaches the service
 * already rounded by the JSON parser (9007199254740993 arrives as 9007199254740992), so it is refused
 * rather than stored as another number. The OpenAPI document states it on every integer.
 */
export const MAX_JSON_INTEGER = Number.MAX_SAFE_INTEGER;

/** An integer JSON numbers hold exactly: within ±MAX_JSON_INTEGER, and at least `min`. */
export function IsJsonInteger(options: { min?: number } = {}) {
  const min = options.min ?? -MAX_JSON_INTEGER;
  return applyDecorators(
    IsInt({ message: 'must be an integer' }),
    Min(min, { message: `must be at least ${min}` }),
    Max(MAX_JSON_INTEGER, { message: `must be at most ${MAX_JSON_INTEGER}, the largest integer a JSON number holds exactly` }),
  );
}
