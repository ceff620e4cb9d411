import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../errors/error-code';

export const IdempotencyError = {
  IDEMPOTENCY_KEY_MISSING: defineErrorCode('IDEMPOTENCY_KEY_MISSING', HttpStatus.BAD_REQUEST),
  IDEMPOTENCY_REQUEST_IN_PROGRESS: defineErrorCode('IDEMPOTENCY_REQUEST_IN_PROGRESS', HttpStatus.CONFLICT),
  IDEMPOTENCY_KEY_REUSED: defineErrorCode('IDEMPOTENCY_KEY_REUSED', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
