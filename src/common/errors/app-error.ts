import { ErrorCode } from './error-code';

/**
 * Every `details.reason` the API can answer: stable snake_case words, all listed in
 * docs/api-conventions.md. A closed list, so that a new reason is a deliberate, documented change.
 */
export type FieldErrorReason =
  // any field
  | 'required'
  | 'too_long'
  | 'too_short'
  | 'invalid_type'
  | 'invalid_format'
  | 'invalid_value'
  | 'unknown_field'
  | 'must_not_be_blank'
  | 'duplicate'
  | 'conflicting_fields'
  // references and revisions
  | 'not_found'
  | 'revision_mismatch'
  | 'invalid_transition'
  | 'package_required'
  | 'wrong_kind'
  | 'expired'
  // uploaded files (details.field `file`)
  | 'invalid_archive'
  | 'unsafe_path'
  | 'too_many_entries'
  | 'too_large'
  | 'invalid_manifest'
  | 'unsupported_type';

export interface FieldErrorDetails {
  field: string;
  reason: FieldErrorReason;
  suggestion?: string;
}

/**
 * The one error type services throw. It carries a contract code; the global filter turns it
 * into the HTTP status and the API's one error body, so services never speak HTTP.
 */
export class AppError extends Error {
  /** The contract code, as the body carries it. */
  readonly code: string;
  readonly status: number;

  constructor(
    error: ErrorCode,
    readonly detail: string,
    readonly details?: FieldErrorDetails,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.code = error.code;
    this.status = error.status;
  }

  static validation(field: string, reason: FieldErrorReason, detail: string, suggestion?: string): AppError {
    const details: FieldErrorDetails = { field, reason };
    if (suggestion !== undefined) details.suggestion = suggestion;
    return new AppError(ErrorCode.VALIDATION_FAILED, detail, details);
  }
}
