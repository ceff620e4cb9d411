import type { ValidationError } from 'class-validator';
import { AppError, type FieldErrorReason } from '../errors/app-error';
import { joinPath } from '../json/find-in-json';

/** Passed as a decorator's `context` to give its failure a reason or a suggested value of its own. */
export interface FieldRuleContext {
  reason?: FieldErrorReason;
  suggest?: (value: unknown) => string | undefined;
}

const REASON_BY_CONSTRAINT: Record<string, FieldErrorReason> = {
  whitelistValidation: 'unknown_field',
  isDefined: 'required',
  isString: 'invalid_type',
  isInt: 'invalid_type',
  isNumber: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  maxLength: 'too_long',
  arrayMaxSize: 'too_long',
  minLength: 'too_short',
  arrayMinSize: 'too_short',
  arrayUnique: 'duplicate',
  isUuid: 'invalid_format',
  matches: 'invalid_format',
  isUrl: 'invalid_format',
  isIso8601: 'invalid_format',
  isIn: 'invalid_value',
  isEnum: 'invalid_value',
  min: 'invalid_value',
  max: 'invalid_value',
};

// When one field breaks several rules, the most basic one is reported.
const REASON_PRIORITY: FieldErrorReason[] = ['unknown_field', 'required', 'invalid_type', 'must_not_be_blank'];

interface FieldFailure {
  path: string;
  error: ValidationError;
}

/** Turns class-validator's errors into one VALIDATION_FAILED naming the first failing field. */
export function validationExceptionFactory(errors: ValidationError[]): AppError {
  const first = firstFailure(errors, '');
  if (!first) return AppError.validation('body', 'invalid_value', 'The request is not valid.');
  const { path, error } = first;
  const constraintNames = Object.keys(error.constraints ?? {});
  const candidates = constraintNames.map((name) => ({ name, reason: reasonOf(name, error) }));
  const rank = (reason: FieldErrorReason) => {
    const index = REASON_PRIORITY.indexOf(reason);
    return index === -1 ? REASON_PRIORITY.length : index;
  };
  candidates.sort((a, b) => rank(a.reason) - rank(b.reason));
  const chosen = candidates[0];
  const message = error.constraints?.[chosen.name] ?? 'is not valid';
  const suggestion = contextOf(chosen.name, error)?.suggest?.(error.value);
  return AppError.validation(path, chosen.reason, `${path}: ${message}`, suggestion);
}

function firstFailure(errors: ValidationError[], prefix: string): FieldFailure | undefined {
  for (const error of errors) {
    const path = joinPath(prefix, error.property);
    if (error.constraints && Object.keys(error.constraints).length > 0) return { path, error };
    const nested = firstFailure(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

function contextOf(constraint: string, error: ValidationError): FieldRuleContext | undefined {
  return error.contexts?.[constraint] as FieldRuleContext | undefined;
}

function reasonOf(constraint: string, error: ValidationError): FieldErrorReason {
  return contextOf(constraint, error)?.reason ?? REASON_BY_CONSTRAINT[constraint] ?? 'invalid_value';
}
