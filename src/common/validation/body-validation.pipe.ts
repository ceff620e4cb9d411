import { Injectable, ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { getMetadataStorage, type ValidationError, type ValidatorOptions } from 'class-validator';
import { AppError, type FieldErrorReason } from '../errors/app-error';
import { findInJson } from '../json/find-in-json';
import { Registries } from '../registries/registries';
import { isRegistryList, registryListValues } from '../registries/registry-list';
import { ruleCachingValidator } from './rule-caching-validator';
import { isStorableText } from './storable-text';
import { validationExceptionFactory } from './validation-exception.factory';

/**
 * Keys no DTO has, that would never be reported as unknown: Nest's ValidationPipe deletes
 * `__proto__`, `prototype` and `constructor` before validating, and class-transformer skips keys
 * whose target is a function (`toString`, `hasOwnProperty`, … : the members of Object.prototype).
 * So they are named here, like any other unknown field.
 */
const SILENTLY_DROPPED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * The global validation pipe: class-validator on the DTOs (unknown fields refused), after two
 * rules that hold for every body and query whatever its DTO, checked on the values as they came:
 * every key and string, at any depth, is storable text (no NUL, no lone surrogate: invalid_value),
 * and no key is one of those that would be dropped silently (unknown_field).
 */
@Injectable()
export class BodyValidationPipe extends ValidationPipe {
  /** class-validator with each class's rules looked up once, not on every request (ADR 0018). */
  private readonly validator: ReturnType<typeof ruleCachingValidator>;

  constructor(registries: Registries) {
    // A rule whose values are a registry list (EnumField with registryList) gets this application's values.
    const validator = ruleCachingValidator(getMetadataStorage(), (constraint) => (isRegistryList(constraint) ? registryListValues(constraint, registries) : constraint));
    // As the validator package too, for the pipe's own look at nested values (getMetadataStorage).
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, stopAtFirstError: false, exceptionFactory: validationExceptionFactory, validatorPackage: validator });
    this.validator = validator;
  }

  // Nest keeps the package of the last ValidationPipe constructed for all of them (a module
  // variable); validating through our own stays so if another one is constructed later.
  protected override validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
    return this.validator.validate(object, options);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const finding = findInJson(value, refusedText);
      if (finding) throw AppError.validation(finding.path, finding.reason.reason, `${finding.path}: ${finding.reason.message}`);
    }
    return super.transform(value, metadata);
  }
}

function refusedText(text: string, isKey: boolean): { reason: FieldErrorReason; message: string } | undefined {
  if (isKey && SILENTLY_DROPPED_KEYS.has(text)) return { reason: 'unknown_field', message: `property ${text} should not exist` };
  if (!isStorableText(text)) return { reason: 'invalid_value', message: 'must be Unicode text without NUL characters or unpaired surrogates' };
  return undefined;
}
