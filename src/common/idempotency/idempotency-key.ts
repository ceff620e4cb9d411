import { AppError } from '../errors/app-error';
import { IdempotencyError } from './idempotency.errors';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** 1 to 255 printable ASCII characters (space to tilde). */
const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** The request's Idempotency-Key, or the contract's 400 when it is absent or malformed. */
export function readIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new AppError(IdempotencyError.IDEMPOTENCY_KEY_MISSING, `This operation requires an ${IDEMPOTENCY_KEY_HEADER} header.`, {
      field: IDEMPOTENCY_KEY_HEADER,
      reason: 'required',
    });
  }
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw AppError.validation(
      IDEMPOTENCY_KEY_HEADER,
      'invalid_format',
      `${IDEMPOTENCY_KEY_HEADER}: must be 1 to 255 printable ASCII characters.`,
    );
  }
  return header;
}
