import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { ArrayMaxSize, getMetadataStorage, IsArray, IsBoolean, IsInt, IsOptional, IsString, Matches, Min, validate, ValidateIf, ValidateNested, type ValidatorOptions } from 'class-validator';
import { ruleCachingValidator, type RuleLookup } from './rule-caching-validator';

class RefInput {
  @IsString()
  id: string;

  @IsBoolean()
  required: boolean;
}

abstract class Revisioned {
  @IsOptional()
  @IsInt()
  @Min(1)
  expected_revision?: number;
}

class SuitePatch extends Revisioned {
  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsString({ each: true })
  @Matches(/^[a-z]+$/, { each: true, message: 'each client must be lower-case', context: { reason: 'invalid_format' } })
  clients?: string[];

  @IsOptional()
  @IsString()
  @ValidateIf((_object: object, value: unknown) => value !== '')
  @Matches(/^https:/)
  icon_url?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => RefInput)
  refs?: RefInput[];

  @IsOptional({ groups: ['admin'] })
  @IsString({ groups: ['admin'] })
  note?: string;
}

// As BodyValidationPipe validates (Nest's ValidationPipe adds the last two).
const PIPE_OPTIONS: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: false, forbidUnknownValues: false, validationError: { target: false } };

const BODIES: object[] = [
  {},
  { expected_revision: 2, name: 'Tax helper', clients: ['web'], icon_url: '', refs: [{ id: 'a', required: true }] },
  { expected_revision: 0, name: 5, clients: ['Web', 'x', 'y'], icon_url: 'ftp://x', extra: 1 },
  { refs: [{ id: 1, required: 'yes', other: true }, 'text', null] },
  { refs: 'none', note: 3 },
];

/** The global storage, with every rule lookup recorded: the lookups are where class-validator walks every class with rules. */
function recordedStorage(): { storage: RuleLookup; lookedUp: string[]; grouped: number[] } {
  const storage = getMetadataStorage();
  const lookedUp: string[] = [];
  const grouped: number[] = [];
  return {
    lookedUp,
    grouped,
    storage: {
      get hasValidationMetaData() {
        return storage.hasValidationMetaData;
      },
      getTargetValidationMetadatas(target, schema, always, strictGroups, groups) {
        lookedUp.push(target.name);
        return storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
      },
      groupByPropertyName(metadata) {
        grouped.push(metadata.length);
        return storage.groupByPropertyName(metadata);
      },
      getTargetValidatorConstraints: (target) => storage.getTargetValidatorConstraints(target),
    },
  };
}

/** n more classes with rules, as each new module's DTOs add them. */
function defineClassesWithRules(n: number): void {
  for (let i = 0; i < n; i++) {
    class Generated {
      @IsString()
      name: string;

      @IsOptional()
      @IsInt()
      count?: number;
    }
    void Generated;
  }
}

describe('ruleCachingValidator', () => {
  it.each(BODIES.map((body) => [JSON.stringify(body), body]))('answers %s as class-validator does', async (_name, body) => {
    const { validate: validateCached } = ruleCachingValidator();
    for (const options of [PIPE_OPTIONS, { ...PIPE_OPTIONS, groups: ['admin'] }, { ...PIPE_OPTIONS, stopAtFirstError: true }]) {
      const expected = await validate(plainToInstance(SuitePatch, body), options);
      expect(await validateCached(plainToInstance(SuitePatch, body), options)).toStrictEqual(expected);
      // and again from the cache
      expect(await validateCached(plainToInstance(SuitePatch, body), options)).toStrictEqual(expected);
    }
  });

  it('looks up the rules of each class once, however many validations and classes with rules there are', async () => {
    const { storage, lookedUp } = recordedStorage();
    const { validate: validateCached } = ruleCachingValidator(storage);
    const body = { name: 'x', refs: [{ id: 'a', required: true }, { id: 'b', required: false }] };

    await validateCached(plainToInstance(SuitePatch, body), PIPE_OPTIONS);
    // class-validator's executor reads the rules through the cache, not from the global storage
    expect(lookedUp).toEqual(['SuitePatch', 'RefInput']);

    for (let i = 0; i < 20; i++) await validateCached(plainToInstance(SuitePatch, body), PIPE_OPTIONS);
    defineClassesWithRules(40);
    for (let i = 0; i < 20; i++) await validateCached(plainToInstance(SuitePatch, body), PIPE_OPTIONS);
    expect(lookedUp).toEqual(['SuitePatch', 'RefInput']);
  });

  it("gives Nest's ValidationPipe the same cache for its own look at nested values", () => {
    const { storage, lookedUp } = recordedStorage();
    const { validate: validateCached, getMetadataStorage: pipeStorage } = ruleCachingValidator(storage);
    void validateCached;
    const first = pipeStorage().getTargetValidationMetadatas(SuitePatch, undefined as unknown as string, false, false);
    const again = pipeStorage().getTargetValidationMetadatas(SuitePatch, undefined as unknown as string, false, false);
    expect(again).toBe(first);
    expect(first).toEqual(getMetadataStorage().getTargetValidationMetadatas(SuitePatch, undefined as unknown as string, false, false));
    expect(lookedUp).toEqual(['SuitePatch']);
  });

  it('keeps the rules of other options apart (groups, always, a nested schema)', () => {
    const { storage, lookedUp } = recordedStorage();
    const rules = ruleCachingValidator(storage).getMetadataStorage();
    const cases: [schema: string, always: boolean, groups?: string[]][] = [
      [undefined as unknown as string, false],
      [undefined as unknown as string, true],
      [undefined as unknown as string, false, ['admin']],
      ['Other', false],
    ];
    for (const [schema, always, groups] of cases) {
      expect(rules.getTargetValidationMetadatas(SuitePatch, schema, always, false, groups)).toEqual(getMetadataStorage().getTargetValidationMetadatas(SuitePatch, schema, always, false, groups));
    }
    expect(lookedUp).toHaveLength(cases.length);
  });

  it('finds the rules of a class defined after its parent was validated, its own and inherited', async () => {
    const { validate: validateCached } = ruleCachingValidator();
    await validateCached(plainToInstance(SuitePatch, {}), PIPE_OPTIONS);
    class LaterPatch extends SuitePatch {
      @IsInt()
      count: number;
    }
    const errors = await validateCached(plainToInstance(LaterPatch, { expected_revision: 0, name: 'x' }), PIPE_OPTIONS);
    expect(errors.map((error) => [error.property, Object.keys(error.constraints ?? {})])).toEqual([
      ['count', ['isInt']],
      ['expected_revision', ['min']],
    ]);
  });

  it('groups the rules of each class by property once, frozen, however many validations', async () => {
    const { storage, grouped } = recordedStorage();
    const validator = ruleCachingValidator(storage);
    const body = { name: 'x', refs: [{ id: 'a', required: true }, { id: 'b', required: false }] };
    for (let i = 0; i < 10; i++) await validator.validate(plainToInstance(SuitePatch, body), PIPE_OPTIONS);
    // SuitePatch's rules and RefInput's, each once
    expect(grouped).toHaveLength(2);
    const rules = validator.getMetadataStorage();
    const groups = rules.groupByPropertyName(rules.getTargetValidationMetadatas(SuitePatch, undefined as unknown as string, false, false));
    expect(Object.isFrozen(groups) && Object.values(groups).every(Object.isFrozen)).toBe(true);
    expect(Object.keys(groups).sort()).toEqual(['clients', 'expected_revision', 'icon_url', 'name', 'note', 'refs']);
  });

  it('shares one frozen list of rules between validations', () => {
    const rules = ruleCachingValidator().getMetadataStorage();
    const list = rules.getTargetValidationMetadatas(SuitePatch, undefined as unknown as string, false, false);
    expect(Object.isFrozen(list)).toBe(true);
  });
});
