import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { Optional } from '../validation/fields';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * The `page_size` query parameter: an integer from 1 to MAX_PAGE_SIZE written in decimal digits,
 * DEFAULT_PAGE_SIZE when absent. Anything else (0, 101, 1.5, 1e2, abc, empty, repeated) is 400
 * `invalid_value`.
 */
export function PageSize() {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Items per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
    }),
    Optional(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value)),
    ValidateBy(
      {
        name: 'pageSize',
        validator: {
          validate: (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PAGE_SIZE,
          defaultMessage: () => `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
        },
      },
      { context: { reason: 'invalid_value' } },
    ),
  );
}
