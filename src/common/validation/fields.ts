import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IS_IN, IsArray, IsBoolean, IsOptional, IsString, ValidateBy, ValidateIf, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { isRegistryList, registryEnum, type RegistryList } from '../registries/registry-list';
import { IsJsonInteger, MAX_JSON_INTEGER, MaxCodePoints, NotBlank, Required } from './field-rules';
import { DateTime } from './date-time';
import { LowerCaseUuid, NoSurroundingWhitespace, ToNfc, Trim } from './string-rules';

/**
 * The field kit: one decorator per kind of field, carrying its validation rules, the contract's
 * failure reasons and the OpenAPI facets from one set of numbers, so that no limit is written
 * twice. Every DTO builds its fields from these (docs/adding-a-module.md, "DTO fields").
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
 * The `expected_revision` of a PATCH body: the revision the client last read of the `what` (a stale
 * one is 409 REVISION_CONFLICT; common/http/write-preconditions.ts).
 */
export function ExpectedRevisionField(what: string) {
  return IntegerField({
    min: 1,
    description:
      `Revision obtained when the ${what} was last read. When it differs from the stored revision the update is ` +
      'refused with 409 REVISION_CONFLICT (details.suggestion = the current revision) and nothing changes. ' +
      'Left out: the update applies to whatever is stored.',
  });
}

/**
 * One of `values` (documented as an enum); anything else is `invalid_value`. `values` is a fixed
 * list or a list of the application's registries (registryList: the audit actions, say), which
 * the validation pipe and the OpenAPI document look up in the application's Registries.
 */
export function EnumField(options: FieldDocs & { values: readonly string[] | RegistryList }) {
  return field(options, { type: String, enum: enumOf(options.values) }, [IsString(), OneOf(options.values, { message: (args) => `must be one of ${allowedValues(args).join(', ')}` })]);
}

/**
 * A list of distinct values from `values` (read as EnumField reads them), at least `minItems`
 * (documented as an array of the enum with minItems and uniqueItems; distinct values are at most
 * all of them): not a list is `invalid_type`, too few `too_short`, a value outside `values`
 * `invalid_value`, a repeat `duplicate`.
 */
export function EnumListField(options: FieldDocs & { values: readonly string[] | RegistryList; minItems: number }) {
  return field(options, { type: 'array', items: { type: 'string', enum: enumOf(options.values) }, minItems: options.minItems, uniqueItems: true }, [
    IsArray(),
    ArrayMinSize(options.minItems),
    IsString({ each: true }),
    OneOf(options.values, { each: true, message: (args) => `each value must be one of ${allowedValues(args).join(', ')}` }),
    ArrayUnique(),
  ]);
}

function enumOf(values: readonly string[] | RegistryList): string[] {
  return isRegistryList(values) ? registryEnum(values) : [...values];
}

/**
 * class-validator's IsIn (same name, so the same `invalid_value` reason), whose list may also be a
 * RegistryList: BodyValidationPipe puts the application's values in its place when it first reads
 * the class's rules, so a list still unresolved here was validated outside the pipe.
 */
function OneOf(values: readonly string[] | RegistryList, validationOptions: ValidationOptions) {
  return ValidateBy(
    {
      name: IS_IN,
      constraints: [values],
      validator: { validate: (value: unknown, args?: ValidationArguments) => args !== undefined && allowedValues(args).includes(value as string) },
    },
    validationOptions,
  );
}

function allowedValues(args: ValidationArguments): readonly string[] {
  const values: unknown = args.constraints[0];
  if (!Array.isArray(values)) throw new Error(`${args.targetName}.${args.property}: its values are a registry list, which only BodyValidationPipe resolves`);
  return values as readonly string[];
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
