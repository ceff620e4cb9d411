import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

/** body-parser marks most of its errors with `type`. */
const ERRORS_BY_TYPE: Record<string, [ErrorCode, string]> = {
  'entity.too.large': [ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than the configured limit.'],
  'encoding.unsupported': [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body has an unsupported content encoding (use gzip, deflate or br).'],
};

/**
 * Names the body reader's failures with the contract's codes. Whatever else it refuses with a 4xx
 * (a body that does not decompress, a length that does not match Content-Length) is a body that
 * cannot be read: INVALID_JSON. Errors that already are AppErrors (from our own parse step) and
 * anything unforeseen pass unchanged.
 */
export function bodyReadError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? ERRORS_BY_TYPE[type] : undefined;
  if (known) return new AppError(known[0], known[1]);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(ErrorCode.INVALID_JSON, 'The request body could not be read (it does not decompress, or its length is not the one declared).');
  }
  return error;
}
