import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationOptions } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Trims a string before it is validated and stored; other types pass unchanged to their type rule. */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * A uuid in its canonical lower-case form (reason invalid_format). When only case or surrounding
 * white space is wrong, the suggestion is the canonical form.
 */
export function IsCanonicalUuid(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'isCanonicalUuid',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || UUID.test(value),
        defaultMessage: () => 'must be a lower-case uuid',
      },
    },
    {
      ...options,
      context: {
        reason: 'invalid_format',
        suggest: (value: unknown) => {
          const canonical = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
          return canonical !== undefined && UUID.test(canonical) ? canonical : undefined;
        },
      },
    },
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
