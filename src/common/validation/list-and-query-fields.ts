import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, ValidateBy } from 'class-validator';
import { field, type FieldDocs } from './fields';
import { lowerCaseUuid } from './string-rules';

/**
 * A list of at most `maxItems` distinct uuids, each in any letter case and lower-cased before
 * anything else sees it (documented as an array of uuids with maxItems and uniqueItems): not a
 * list is `invalid_type`, too many `too_long`, an element that is not a uuid `invalid_format`, a
 * repeat (after lower-casing) `duplicate`. The order sent is kept.
 */
export function UuidListField(options: FieldDocs & { maxItems: number }) {
  return field(options, { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: options.maxItems, uniqueItems: true }, [
    Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((item) => lowerCaseUuid(item) ?? item) : value)),
    IsArray(),
    ArrayMaxSize(options.maxItems),
    ValidateBy(
      {
        name: 'uuidList',
        validator: {
          validate: (value: unknown) => !Array.isArray(value) || value.every((item) => lowerCaseUuid(item) === item),
          defaultMessage: () => 'each element must be a uuid',
        },
      },
      { context: { reason: 'invalid_format' } },
    ),
    ArrayUnique(),
  ]);
}

/**
 * A boolean query parameter: exactly `true` or `false` (documented as a boolean); anything else
 * (`1`, `yes`, `TRUE`, empty, repeated) is 400 `invalid_value`.
 */
export function QueryBooleanField(options: FieldDocs = {}) {
  return field(options, { type: Boolean }, [
    Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value)),
    ValidateBy(
      {
        name: 'queryBoolean',
        validator: { validate: (value: unknown) => typeof value === 'boolean', defaultMessage: () => 'must be true or false' },
      },
      { context: { reason: 'invalid_value' } },
    ),
  ]);
}
