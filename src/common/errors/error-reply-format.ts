import type { AppError } from './app-error';
import type { ErrorReply } from './error-reply';

/**
 * How failures are answered under one path prefix whose protocol has an error body of its own
 * (SCIM's `/scim/v2`, RFC 7644 §3.12), instead of the API's. A module lists its formats in its
 * `definitions`; the exception filter answers every failure of a request under the prefix with it
 * (401, 404 of an unknown route and 503 included), and the OpenAPI document describes the
 * operations' error answers with its schema and media type. The rest of the API keeps its body.
 */
export interface ErrorReplyFormat {
  /** The path the format's requests start with, without a trailing slash (`/scim/v2`); compared without regard to case, as Express routes. */
  readonly pathPrefix: string;
  /** The media type of its error bodies (the Content-Type gets `; charset=utf-8`). */
  readonly mediaType: string;
  /** The name of its error body's schema among the OpenAPI document's components. */
  readonly schemaName: string;
  /**
   * The answer to an exception of the format's own (its protocol's error class), which the filter
   * then neither names nor logs as a fault; undefined for any other.
   */
  replyToOwn?(exception: unknown): ErrorReply<object> | undefined;
  /** The answer to any other failure, as the filter named it: status and headers as the API's (errorReply), the body its own. */
  reply(error: AppError): ErrorReply<object>;
}

/** The format whose prefix `path` is under (the prefix itself or below it), if any. */
export function errorReplyFormatFor(formats: readonly ErrorReplyFormat[], path: string): ErrorReplyFormat | undefined {
  if (formats.length === 0) return undefined;
  const lower = path.toLowerCase();
  return formats.find(({ pathPrefix }) => {
    const prefix = pathPrefix.toLowerCase();
    return lower === prefix || lower.startsWith(`${prefix}/`);
  });
}
