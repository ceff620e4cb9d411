import { ErrorCode, STATUS_BY_CODE } from './error-code';

/** Stable snake_case reasons for `details.reason` (CONTRACT.md section 2). */
export type FieldErrorReason =
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
  | 'not_found'
  | 'revision_mismatch'
  | (string & {});

export interface FieldErrorDetails {
  field: string;
  reason: FieldErrorReason;
  suggestion?: string;
}

/**
 * The one error type services throw. It carries a contract code; the global filter turns it
 * into the HTTP status and the spec's error body, so services never speak HTTP.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly details?: FieldErrorDetails,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = STATUS_BY_CODE[code];
  }

  static validation(field: string, reason: FieldErrorReason, detail: string, suggestion?: string): AppError {
    const details: FieldErrorDetails = { field, reason };
    if (suggestion !== undefined) details.suggestion = suggestion;
    return new AppError(ErrorCode.VALIDATION_FAILED, detail, details);
  }
}
