import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator';
import { ErrorCode } from '../errors/error-code';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-key';
import { IdempotencyInterceptor, IDEMPOTENT_REPLAYED_HEADER, IDEMPOTENT_SQL_ONLY } from './idempotency.interceptor';
import { IdempotencyError } from './idempotency.errors';

/** The success response's header, for the operation's @ApiCreatedResponse / @ApiOkResponse. */
export const IDEMPOTENT_SUCCESS_HEADERS = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: '`true` when this response is the stored response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

export interface IdempotentOptions {
  /**
   * The handler writes only raw statements through `txHost.sql`: its transaction then runs on the
   * driver adapter instead of the Prisma client, which saves the client's cost per statement
   * (docs/performance.md). Without it, the handler may use model queries (`txHost.tx`) too.
   */
  sqlOnly?: boolean;
}

/**
 * Makes a write idempotent (docs/idempotency.md): requires the Idempotency-Key header, replays
 * the stored success for a repeated request, and documents the header and its errors once.
 */
export function Idempotent(options: IdempotentOptions = {}) {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    SetMetadata(IDEMPOTENT_SQL_ONLY, options.sqlOnly === true),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: true,
      description:
        'Key of this write, 1 to 255 printable ASCII characters, scoped to the API key. A retry with the same key ' +
        'and the same request gets the stored response (with `Idempotent-Replayed: true`) for the retention period (24 hours by default); a failure is ' +
        'not stored, so retrying it runs the request again.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
    ApiErrorResponses(
      [IdempotencyError.IDEMPOTENCY_KEY_MISSING, 'The Idempotency-Key header is missing (details.field `Idempotency-Key`, reason `required`).'],
      [ErrorCode.VALIDATION_FAILED, 'The Idempotency-Key header is malformed (details.field `Idempotency-Key`, reason `invalid_format`).', 'VALIDATION_FAILED (Idempotency-Key)'],
      [IdempotencyError.IDEMPOTENCY_REQUEST_IN_PROGRESS, 'A request with the same Idempotency-Key is still being processed; retry after the Retry-After seconds.'],
      [IdempotencyError.IDEMPOTENCY_KEY_REUSED, 'The Idempotency-Key was used before with a different request (method, path or body).'],
    ),
  );
}
