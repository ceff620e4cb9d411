import { HttpStatus } from '@nestjs/common';

/**
 * A stable business error code with the HTTP status it is answered with (docs/api-conventions.md
 * lists them all). Cross-cutting codes are defined below; a module defines its own in
 * `<module>.errors.ts` and lists them in its `definitions`, so it adds codes without editing a
 * shared list; the application collects them into one ErrorCatalog (common/registries).
 */
export interface ErrorCode<Code extends string = string> {
  readonly code: Code;
  readonly status: number;
}

/** A code and its status, the name checked; it is in no catalog until a module lists it. */
export function defineErrorCode<const Code extends string>(code: Code, status: number): ErrorCode<Code> {
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new Error(`Error code "${code}" is not UPPER_SNAKE_CASE`);
  return Object.freeze({ code, status });
}

// RFC 6585; Nest's HttpStatus enum lacks it.
const REQUEST_HEADER_FIELDS_TOO_LARGE = 431;

/** The `error` field: a stable snake_case HTTP error type per status. */
const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  [HttpStatus.BAD_REQUEST]: 'bad_request',
  [HttpStatus.UNAUTHORIZED]: 'unauthorized',
  [HttpStatus.FORBIDDEN]: 'forbidden',
  [HttpStatus.NOT_FOUND]: 'not_found',
  [HttpStatus.CONFLICT]: 'conflict',
  [HttpStatus.PRECONDITION_FAILED]: 'precondition_failed',
  [HttpStatus.REQUEST_TIMEOUT]: 'request_timeout',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'payload_too_large',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'unsupported_media_type',
  [HttpStatus.UNPROCESSABLE_ENTITY]: 'unprocessable_entity',
  [HttpStatus.TOO_MANY_REQUESTS]: 'too_many_requests',
  [REQUEST_HEADER_FIELDS_TOO_LARGE]: 'request_header_fields_too_large',
  [HttpStatus.INTERNAL_SERVER_ERROR]: 'internal_error',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'service_unavailable',
};

export function errorTypeForStatus(status: number): string {
  return ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

/** The codes of the global layers, which any operation can answer. */
export const ErrorCode = {
  VALIDATION_FAILED: defineErrorCode('VALIDATION_FAILED', HttpStatus.BAD_REQUEST),
  INVALID_JSON: defineErrorCode('INVALID_JSON', HttpStatus.BAD_REQUEST),
  MALFORMED_REQUEST: defineErrorCode('MALFORMED_REQUEST', HttpStatus.BAD_REQUEST),
  REQUEST_TIMEOUT: defineErrorCode('REQUEST_TIMEOUT', HttpStatus.REQUEST_TIMEOUT),
  REQUEST_HEADERS_TOO_LARGE: defineErrorCode('REQUEST_HEADERS_TOO_LARGE', REQUEST_HEADER_FIELDS_TOO_LARGE),
  UNAUTHENTICATED: defineErrorCode('UNAUTHENTICATED', HttpStatus.UNAUTHORIZED),
  INSUFFICIENT_SCOPE: defineErrorCode('INSUFFICIENT_SCOPE', HttpStatus.FORBIDDEN),
  NOT_FOUND: defineErrorCode('NOT_FOUND', HttpStatus.NOT_FOUND),
  PRECONDITION_FAILED: defineErrorCode('PRECONDITION_FAILED', HttpStatus.PRECONDITION_FAILED),
  PAYLOAD_TOO_LARGE: defineErrorCode('PAYLOAD_TOO_LARGE', HttpStatus.PAYLOAD_TOO_LARGE),
  UNSUPPORTED_MEDIA_TYPE: defineErrorCode('UNSUPPORTED_MEDIA_TYPE', HttpStatus.UNSUPPORTED_MEDIA_TYPE),
  RATE_LIMITED: defineErrorCode('RATE_LIMITED', HttpStatus.TOO_MANY_REQUESTS),
  INTERNAL_ERROR: defineErrorCode('INTERNAL_ERROR', HttpStatus.INTERNAL_SERVER_ERROR),
  SERVICE_UNAVAILABLE: defineErrorCode('SERVICE_UNAVAILABLE', HttpStatus.SERVICE_UNAVAILABLE),
} as const;
