import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AppError } from '../errors/app-error';
import { BooleanField, EnumField, EnumListField, IntegerField, TextField, UuidField } from './fields';
import { validationExceptionFactory } from './validation-exception.factory';

// Where @nestjs/swagger keeps a property's schema (its DECORATORS.API_MODEL_PROPERTIES, not exported).
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

class Sample {
  @TextField({ presence: 'required', maxLength: 5, trim: true, notBlank: true })
  name: string;

  @TextField({ presence: 'nullable', maxLength: 8, notBlank: true, exact: true })
  code?: string | null;

  @UuidField()
  ref?: string;

  @IntegerField({ min: 1 })
  count?: number;

  @EnumField({ values: ['a', 'b'] })
  kind?: string;

  @BooleanField()
  flag?: boolean;

  @EnumListField({ values: ['x', 'y', 'z'], minItems: 1 })
  tags?: string[];
}

/** The first failure's details, as the API would answer them; undefined when the body is valid. */
async function failure(body: object): Promise<{ field: string; reason: string; suggestion?: string } | undefined> {
  const instance = plainToInstance(Sample, body);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length === 0) return undefined;
  return (validationExceptionFactory(errors) as AppError).details as { field: string; reason: string; suggestion?: string };
}

describe('the field kit', () => {
  it('accepts a valid body, trimming and lower-casing where the field says so', async () => {
    const instance = plainToInstance(Sample, { name: '  Ann ', ref: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', count: 2, kind: 'a', flag: true, code: null, tags: ['z', 'x'] });
    expect(await validate(instance)).toEqual([]);
    expect(instance.name).toBe('Ann');
    expect(instance.ref).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  });

  it.each([
    [{}, 'name', 'required'],
    [{ name: null }, 'name', 'required'],
    [{ name: 5 }, 'name', 'invalid_type'],
    [{ name: ' \u200B ' }, 'name', 'must_not_be_blank'],
    [{ name: 'abcdef' }, 'name', 'too_long'],
    [{ name: 'a', code: ' x' }, 'code', 'invalid_format'],
    [{ name: 'a', code: '' }, 'code', 'must_not_be_blank'],
    [{ name: 'a', ref: 'nope' }, 'ref', 'invalid_format'],
    [{ name: 'a', ref: null }, 'ref', 'invalid_type'],
    [{ name: 'a', count: 0 }, 'count', 'invalid_value'],
    [{ name: 'a', count: 1.5 }, 'count', 'invalid_type'],
    [{ name: 'a', count: 2 ** 53 }, 'count', 'invalid_value'],
    [{ name: 'a', kind: 'c' }, 'kind', 'invalid_value'],
    [{ name: 'a', flag: 'yes' }, 'flag', 'invalid_type'],
    [{ name: 'a', extra: 1 }, 'extra', 'unknown_field'],
    [{ name: 'a', tags: 'x' }, 'tags', 'invalid_type'],
    [{ name: 'a', tags: [] }, 'tags', 'too_short'],
    [{ name: 'a', tags: ['x', 'w'] }, 'tags', 'invalid_value'],
    [{ name: 'a', tags: ['x', 'x'] }, 'tags', 'duplicate'],
  ])('refuses %j: %s %s', async (body, field, reason) => {
    expect(await failure(body)).toMatchObject({ field, reason });
  });

  it('suggests the value cut to the limit, after trimming', async () => {
    expect(await failure({ name: '  abcdefg  ' })).toEqual({ field: 'name', reason: 'too_long', suggestion: 'abcde' });
  });

  it('documents each facet from the same numbers the rules use', () => {
    const property = (name: string) => Reflect.getMetadata(API_MODEL_PROPERTIES, Sample.prototype, name) as Record<string, unknown>;
    expect(property('name')).toMatchObject({ type: String, maxLength: 5 });
    expect(property('name').required ?? true).toBe(true);
    expect(property('code')).toMatchObject({ type: String, maxLength: 8, required: false, nullable: true });
    expect(property('ref')).toMatchObject({ format: 'uuid', required: false });
    expect(property('ref').nullable).toBeUndefined();
    expect(property('count')).toMatchObject({ type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(property('kind')).toMatchObject({ enum: ['a', 'b'] });
    expect(property('tags')).toMatchObject({ type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 1, uniqueItems: true, required: false });
  });
});
