import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

/** body-parser marks its errors with `type`. */
const ERRORS_BY_TYPE: Record<string, [ErrorCode, string]> = {
  'entity.parse.failed': [ErrorCode.INVALID_JSON, 'The request body is not valid JSON.'],
  'entity.too.large': [ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than the configured limit.'],
  'encoding.unsupported': [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body has an unsupported content encoding.'],
  'charset.unsupported': [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be UTF-8 JSON.'],
};

/**
 * Placed right after the JSON body parser: names its failures with the contract's codes
 * before Nest would fold them into a generic 400.
 */
export function bodyParserErrorsMiddleware(error: unknown, _request: Request, _response: Response, next: NextFunction): void {
  const type = (error as { type?: unknown } | null)?.type;
  const known = typeof type === 'string' ? ERRORS_BY_TYPE[type] : undefined;
  next(known ? new AppError(known[0], known[1]) : error);
}
