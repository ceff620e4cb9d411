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

/** Not empty and not only white space. */
export function NotBlank(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value.trim().length > 0,
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

const INT64_MAX = 9223372036854775807;

/** A JSON integer within the int64 range; counts and revisions also refuse negatives. */
export function IsInt64(options: { min?: number } = {}) {
  return applyDecorators(
    IsInt({ message: 'must be an integer' }),
    Min(options.min ?? -INT64_MAX, { message: `must be at least ${options.min ?? -INT64_MAX}` }),
    Max(INT64_MAX, { message: 'must be within the int64 range' }),
  );
}
