import { HttpStatus } from '@nestjs/common';
import type { AppError } from './app-error';
import type { ErrorBodyDto } from './error-body.dto';
import { errorTypeForStatus } from './error-code';

/**
 * Seconds a client should wait before retrying a 503: a busy pool, a lock or a full upload
 * allowance is usually over soon (and every wait is bounded anyway); an outage, or an instance
 * shutting down, takes longer.
 */
export const RETRY_AFTER_BUSY = '1';
export const RETRY_AFTER_UNAVAILABLE = '5';

export interface ErrorReply<Body extends object = ErrorBodyDto> {
  status: number;
  headers: Record<string, string>;
  body: Body;
}

/**
 * What the service answers for a failure: the status, the headers and the error body. Every
 * answer of a failure is written from this, so the rule that every 503 carries Retry-After holds
 * for all of them: the error's own when it names one, else RETRY_AFTER_UNAVAILABLE.
 */
export function errorReply(error: AppError): ErrorReply {
  const body: ErrorBodyDto = { code: error.code, error: errorTypeForStatus(error.status), detail: error.detail };
  if (error.details) body.details = error.details;
  const headers = error.status === HttpStatus.SERVICE_UNAVAILABLE ? { 'Retry-After': RETRY_AFTER_UNAVAILABLE, ...error.headers } : error.headers;
  return { status: error.status, headers, body };
}
