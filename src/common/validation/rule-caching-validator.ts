import { getFromContainer, getMetadataStorage, Validator, type MetadataStorage, type ValidationError, type ValidatorOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

// The executor behind class-validator's own validate(); the package's entry does not export it.
const { ValidationExecutor } = require('class-validator/cjs/validation/ValidationExecutor') as typeof import('class-validator/types/validation/ValidationExecutor');

/** What class-validator's executor and Nest's ValidationPipe read from the metadata storage. */
export type RuleLookup = Pick<MetadataStorage, 'hasValidationMetaData' | 'groupByPropertyName' | 'getTargetValidationMetadatas' | 'getTargetValidatorConstraints'>;

/**
 * The storage's rules of each class, looked up once per class and options. class-validator (0.15)
 * finds a class's inherited rules by testing every class that has rules, on every validation of
 * every object, so without this the cost of each request grew with the number of DTOs in the app
 * (ADR 0018). A class's rules are complete once the class is defined: its decorators and its
 * ancestors' have run by then, and classes defined later only add rules of their own.
 */
class ClassRuleCache implements RuleLookup {
  private readonly resolved = new WeakMap<Function, Map<string, ValidationMetadata[]>>();
  private readonly grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();

  constructor(
    private readonly storage: RuleLookup,
    private readonly resolveConstraint: ConstraintResolver,
  ) {}

  get hasValidationMetaData(): boolean {
    return this.storage.hasValidationMetaData;
  }

  getTargetValidationMetadatas(target: Function, schema: string, always: boolean, strictGroups: boolean, groups?: string[]): ValidationMetadata[] {
    if (typeof target !== 'function') return this.storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
    let byOptions = this.resolved.get(target);
    if (!byOptions) this.resolved.set(target, (byOptions = new Map()));
    // Without groups (every validation here) a short key; with them the groups in JSON, which starts with "[".
    const key = groups === undefined ? `${always ? 1 : 0}${strictGroups ? 1 : 0}${schema ?? ''}` : JSON.stringify([always, strictGroups, schema ?? null, groups]);
    let rules = byOptions.get(key);
    if (!rules) {
      // Frozen: every validation of the class shares the list, so none may change it.
      rules = Object.freeze(this.storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups).map((rule) => this.resolve(rule))) as ValidationMetadata[];
      byOptions.set(key, rules);
    }
    return rules;
  }

  /** The rule itself, or a copy whose constraints the resolver replaced (the storage's rule stays as declared). */
  private resolve(rule: ValidationMetadata): ValidationMetadata {
    const constraints = rule.constraints?.map(this.resolveConstraint);
    if (!constraints || constraints.every((constraint, i) => constraint === rule.constraints[i])) return rule;
    return Object.assign(Object.create(Object.getPrototypeOf(rule) as object) as ValidationMetadata, rule, { constraints });
  }

  /** Grouped once per list of rules: the executor asks for it on every validation of every object, and only reads it. */
  groupByPropertyName(metadata: ValidationMetadata[]): Record<string, ValidationMetadata[]> {
    if (!Object.isFrozen(metadata)) return this.storage.groupByPropertyName(metadata);
    let groups = this.grouped.get(metadata);
    if (!groups) {
      groups = this.storage.groupByPropertyName(metadata);
      for (const rules of Object.values(groups)) Object.freeze(rules);
      this.grouped.set(metadata, Object.freeze(groups));
    }
    return groups;
  }

  getTargetValidatorConstraints(target: Function): ReturnType<MetadataStorage['getTargetValidatorConstraints']> {
    return this.storage.getTargetValidatorConstraints(target);
  }
}

/**
 * What a rule's constraint stands for in this validator: the constraint itself, or (for a
 * RegistryList) the values it names. Applied once per class, when its rules are first read.
 */
export type ConstraintResolver = (constraint: unknown) => unknown;

/**
 * A validator package for Nest's ValidationPipe (its `validatorPackage` option): class-validator's
 * validate(), step for step as `Validator.validate` runs it, whose executor reads each class's rules
 * through one ClassRuleCache; `getMetadataStorage` gives the pipe's own look for binary values the
 * same cache.
 */
export function ruleCachingValidator(storage: RuleLookup = getMetadataStorage(), resolveConstraint: ConstraintResolver = (constraint) => constraint) {
  const rules = new ClassRuleCache(storage, resolveConstraint);
  return {
    validate(object: unknown, options?: ValidatorOptions): Promise<ValidationError[]> {
      const executor = new ValidationExecutor(getFromContainer(Validator), options);
      // Its constructor sets this field to the global storage, and the executor reads rules only from it
      // (class-validator 0.15; the spec fails if that changes).
      (executor as unknown as { metadataStorage: RuleLookup }).metadataStorage = rules;
      const errors: ValidationError[] = [];
      executor.execute(object as object, undefined as unknown as string, errors);
      return Promise.all(executor.awaitingPromises).then(() => executor.stripEmptyErrors(errors));
    },
    getMetadataStorage: (): RuleLookup => rules,
  };
}
