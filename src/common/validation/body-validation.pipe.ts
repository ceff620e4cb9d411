import { Injectable, ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { AppError, type FieldErrorReason } from '../errors/app-error';
import { findInJson } from '../json/find-in-json';
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
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, stopAtFirstError: false, exceptionFactory: validationExceptionFactory });
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
