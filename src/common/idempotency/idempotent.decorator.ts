import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrorResponses, type DocumentedError } from '../errors/api-error-responses.decorator';
import { ErrorCode } from '../errors/error-code';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-key';
import { IdempotencyInterceptor, IDEMPOTENT_KEY_OPTIONAL, IDEMPOTENT_REPLAYED_HEADER } from './idempotency.interceptor';
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
   * `false`: the Idempotency-Key header may be left out; a request without one runs once as sent (in
   * the same transaction a keyed one gets) and is never replayed. A key that is sent follows the
   * same rules as on a route that requires it. Default `true`.
   */
  keyRequired?: boolean;
}

/**
 * Makes a write idempotent (docs/idempotency.md): requires the Idempotency-Key header (or accepts
 * it, with `keyRequired: false`), replays the stored success for a repeated request, and documents
 * the header and its errors once.
 */
export function Idempotent(options: IdempotentOptions = {}) {
  const keyRequired = options.keyRequired !== false;
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    SetMetadata(IDEMPOTENT_KEY_OPTIONAL, !keyRequired),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: keyRequired,
      description:
        (keyRequired ? '' : 'Optional. Without it the request runs once as sent and a retry may repeat the write. ') +
        'Key of this write, 1 to 255 printable ASCII characters, scoped to the API key. A retry with the same key ' +
        'and the same request gets the stored response (with `Idempotent-Replayed: true`) for the retention period (24 hours by default); a failure is ' +
        'not stored, so retrying it runs the request again.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
    ApiErrorResponses(
      ...(keyRequired ? [[IdempotencyError.IDEMPOTENCY_KEY_MISSING, 'The Idempotency-Key header is missing (details.field `Idempotency-Key`, reason `required`).'] satisfies DocumentedError] : []),
      [ErrorCode.VALIDATION_FAILED, 'The Idempotency-Key header is malformed (details.field `Idempotency-Key`, reason `invalid_format`).', 'VALIDATION_FAILED (Idempotency-Key)'],
      [IdempotencyError.IDEMPOTENCY_REQUEST_IN_PROGRESS, 'A request with the same Idempotency-Key is still being processed; retry after the Retry-After seconds.'],
      [IdempotencyError.IDEMPOTENCY_KEY_REUSED, 'The Idempotency-Key was used before with a different request (method, path or body).'],
    ),
  );
}
