import type { OpenAPIObject } from '@nestjs/swagger';
import type { HeadersObject, OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { REQUIRED_SCOPE_EXTENSION } from '../auth/auth.decorators';
import { errorResponsesByStatus, type DocumentedError } from './api-error-responses.decorator';
import { ErrorCode } from './error-code';
import { RETRY_AFTER_BUSY, RETRY_AFTER_UNAVAILABLE } from './error-reply';

const ERROR_BODY_SCHEMA = { $ref: '#/components/schemas/ErrorBodyDto' };

/**
 * Raised while a JSON body is read, before any handler runs: every write but a multipart upload,
 * since JsonBodyGuard reads the body of any POST, PUT or PATCH that has one, a bodiless action
 * (rotate-secret, redeliver) sent a body included.
 */
const JSON_BODY_ERRORS: DocumentedError[] = [
  [ErrorCode.INVALID_JSON, 'The body is not JSON the service reads: not parseable, invalid UTF-8, nested over 64 levels, or not decodable in its Content-Encoding.'],
  [ErrorCode.PAYLOAD_TOO_LARGE, 'The body is larger than the configured limit (JSON_BODY_LIMIT_BYTES, 1 MiB by default).'],
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The body is not application/json in UTF-8, or has a Content-Encoding other than gzip, deflate or br.'],
];

/** Raised by the global guards and the database layer: every operation that needs an API key. */
const scopedOperationErrors = (scope: string): DocumentedError[] => [
  [ErrorCode.UNAUTHENTICATED, 'The Authorization header is missing or malformed, or the API key is unknown or revoked.'],
  [ErrorCode.INSUFFICIENT_SCOPE, `The API key lacks the scope ${scope}.`],
  [ErrorCode.RATE_LIMITED, 'The API key spent its requests per minute, or (without a valid key) the client address its failed authentications per minute; retry after Retry-After seconds.'],
  [ErrorCode.SERVICE_UNAVAILABLE, 'The database is unreachable (Retry-After: 5) or every connection stayed busy (Retry-After: 1); retry later.'],
];

/** Raised for every operation: a query parameter it does not take, a Host header that is no host, anything unforeseen. */
const EVERY_OPERATION_ERRORS: DocumentedError[] = [
  [ErrorCode.VALIDATION_FAILED, 'A query parameter the operation does not take (`unknown_field`), or a Host header that is not a host name with an optional port (`invalid_format`); details.field names it.'],
  [ErrorCode.INTERNAL_ERROR, 'An unexpected fault (a bug); nothing about it is disclosed. Quote the X-Request-Id when reporting it.'],
];

/**
 * Documents the errors of the global layers once, for every operation they apply to, so that a
 * handler declares only its own: JSON body errors on every write that is no upload, and
 * authentication, scope, rate limit and database errors where it needs a key, and an unknown query
 * parameter, an invalid Host and the unexpected fault everywhere. An example an operation documents itself (a 503 with its own wording, say) is kept.
 * Every 503, the operation's own included, gets its Retry-After header.
 */
export function documentCrossCuttingErrors(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(pathItem) as Array<[string, OperationObject]>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const errors: DocumentedError[] = [];
      if (readsJsonBody(method, operation)) errors.push(...JSON_BODY_ERRORS);
      const scope = (operation as unknown as Record<string, unknown>)[REQUIRED_SCOPE_EXTENSION];
      if (typeof scope === 'string') errors.push(...scopedOperationErrors(scope));
      errors.push(...EVERY_OPERATION_ERRORS);
      addErrorResponses(operation, errors);
      documentRetryAfter(operation);
    }
  }
}

const RETRY_AFTER: HeadersObject = {
  'Retry-After': {
    required: true,
    description: `Seconds to wait before retrying: ${RETRY_AFTER_BUSY} where a wait on the database ran out or the instance has no room for an upload, ${RETRY_AFTER_UNAVAILABLE} otherwise (the database is unreachable).`,
    schema: { type: 'integer', minimum: 0 },
  },
};

/** Every 503 carries Retry-After (errorReply), so the document says so wherever an operation answers one. */
function documentRetryAfter(operation: OperationObject): void {
  const unavailable = operation.responses['503'] as ResponseObject | undefined;
  if (unavailable) unavailable.headers = { ...unavailable.headers, ...RETRY_AFTER };
}

function readsJsonBody(method: string, operation: OperationObject): boolean {
  const body = operation.requestBody;
  const multipart = body !== undefined && 'content' in body && body.content['multipart/form-data'] !== undefined;
  return ['post', 'put', 'patch'].includes(method) && !multipart;
}

function addErrorResponses(operation: OperationObject, errors: DocumentedError[]): void {
  for (const [status, { description, examples }] of errorResponsesByStatus(errors)) {
    const existing = operation.responses[status] as ResponseObject | undefined;
    if (!existing) {
      operation.responses[status] = { description, content: { 'application/json': { schema: ERROR_BODY_SCHEMA, examples } } };
      continue;
    }
    const media = existing.content?.['application/json'];
    if (!media) continue;
    media.examples ??= {};
    const lines = description.split('\n');
    Object.keys(examples).forEach((name, i) => {
      if (media.examples![name] !== undefined) return;
      media.examples![name] = examples[name];
      existing.description = `${existing.description}\n${lines[i]}`;
    });
  }
}
