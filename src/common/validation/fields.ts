import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { IsJsonInteger, MAX_JSON_INTEGER, MaxCodePoints, NotBlank, Required } from './field-rules';
import { DateTime } from './date-time';
import { LowerCaseUuid, NoSurroundingWhitespace, ToNfc, Trim } from './string-rules';

/**
 * The field kit: one decorator per kind of field, carrying its validation rules, the contract's
 * failure reasons and the OpenAPI facets from one set of numbers, so that no limit is written
 * twice. Every DTO builds its fields from these (docs/architecture.md, "Adding a module").
 */

/** `required`: present and not null. `optional`: may be left out, not null. `nullable`: may be left out or null. */
export type Presence = 'required' | 'optional' | 'nullable';

export interface FieldDocs {
  presence?: Presence;
  description?: string;
  example?: unknown;
}

/**
 * The one optional rule. Left out is always fine; null is a value only where `nullable` says so
 * (otherwise it fails the field's type rule, like any other wrong type).
 */
export function Optional({ nullable = false }: { nullable?: boolean } = {}) {
  return nullable ? IsOptional() : ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** A string of at most `maxLength` code points (documented as `maxLength`). */
export function TextField(options: FieldDocs & {
  maxLength: number;
  /** Surrounding white space is removed before the rules and storage. */
  trim?: boolean;
  /** Written in Unicode NFC before the rules and storage (the stored and returned form). */
  nfc?: boolean;
  /** Empty, white space and invisible characters only: `must_not_be_blank`. */
  notBlank?: boolean;
  /** Stored exactly as sent, so surrounding white space is refused (`invalid_format`) rather than trimmed. */
  exact?: boolean;
}) {
  return field(options, { type: String, maxLength: options.maxLength }, [
    ...(options.trim ? [Trim()] : []),
    ...(options.nfc ? [ToNfc()] : []),
    IsString(),
    ...(options.notBlank ? [NotBlank()] : []),
    ...(options.exact ? [NoSurroundingWhitespace()] : []),
    MaxCodePoints(options.maxLength),
  ]);
}

/** A uuid in any letter case, lower-cased before anything else sees it (documented as `format: uuid`). */
export function UuidField(options: FieldDocs = {}) {
  return field(options, { type: String, format: 'uuid' }, [IsString(), LowerCaseUuid()]);
}

/** An integer JSON numbers hold exactly, at least `min` (documented as int64 with its minimum and maximum). */
export function IntegerField(options: FieldDocs & { min: number }) {
  return field(options, { type: 'integer', format: 'int64', minimum: options.min, maximum: MAX_JSON_INTEGER }, [IsJsonInteger({ min: options.min })]);
}

/**
 * One of `values` (documented as an enum); anything else is `invalid_value`. `values` is read when
 * a value is checked and when the OpenAPI document is built, never copied: a list that fills as the
 * modules load (the audit actions, src/common/audit/audit-actions.ts) holds every value by then.
 */
export function EnumField(options: FieldDocs & { values: readonly string[] }) {
  const values = options.values as string[];
  return field(options, { type: String, enum: values }, [IsString(), IsIn(values, { message: () => `must be one of ${values.join(', ')}` })]);
}

/**
 * A list of distinct values from `values` (read as EnumField reads them), at least `minItems`
 * (documented as an array of the enum with minItems and uniqueItems; distinct values are at most
 * all of them): not a list is `invalid_type`, too few `too_short`, a value outside `values`
 * `invalid_value`, a repeat `duplicate`.
 */
export function EnumListField(options: FieldDocs & { values: readonly string[]; minItems: number }) {
  const values = options.values as string[];
  return field(options, { type: 'array', items: { type: 'string', enum: values }, minItems: options.minItems, uniqueItems: true }, [
    IsArray(),
    ArrayMinSize(options.minItems),
    IsString({ each: true }),
    IsIn(values, { each: true, message: () => `each value must be one of ${values.join(', ')}` }),
    ArrayUnique(),
  ]);
}

/**
 * An ISO 8601 (RFC 3339) date-time with its time zone, `Z` or an offset, naming a real instant the
 * service can store (documented as `format: date-time`); the value stays the string sent,
 * `dateTimeInstant(value)` reads it.
 */
export function DateTimeField(options: FieldDocs = {}) {
  return field(options, { type: String, format: 'date-time' }, [IsString(), DateTime()]);
}

export function BooleanField(options: FieldDocs = {}) {
  return field(options, { type: Boolean }, [IsBoolean()]);
}

/**
 * The documentation, the presence rule, then the field's own rules, applied as if written in that
 * order on the property (TypeScript applies property decorators bottom-up, so the list is reversed).
 */
export function field(docs: FieldDocs, schema: ApiPropertyOptions, rules: PropertyDecorator[]): PropertyDecorator {
  const presence = docs.presence ?? 'optional';
  const documented = {
    ...schema,
    ...(docs.description === undefined ? {} : { description: docs.description }),
    ...(docs.example === undefined ? {} : { example: docs.example }),
  } as ApiPropertyOptions;
  const documentation =
    presence === 'required' ? ApiProperty(documented) : ApiPropertyOptional({ ...documented, ...(presence === 'nullable' ? { nullable: true } : {}) } as ApiPropertyOptions);
  const presenceRule = presence === 'required' ? Required() : Optional({ nullable: presence === 'nullable' });
  return applyDecorators(...[documentation, presenceRule, ...rules].reverse());
}
