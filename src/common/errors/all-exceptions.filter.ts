import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { REQUEST_ID_HEADER } from '../http/request-id.middleware';
import { databaseWait, isDatabaseUnavailable, type DatabaseWait } from '../../database/database-unavailable';
import { DatabaseOutageLog } from '../../database/outage-log';
import { isUnstorableText } from '../../database/prisma-errors';
import { AppError } from './app-error';
import { ErrorCode } from './error-code';
import { errorReply, RETRY_AFTER_BUSY, type ErrorReply } from './error-reply';
import { errorReplyFormatFor, type ErrorReplyFormat } from './error-reply-format';
import { loggablePath } from '../logging/loggable-path';
import { Registries } from '../registries/registries';

const CODE_BY_HTTP_STATUS: Partial<Record<number, ErrorCode>> = {
  [HttpStatus.BAD_REQUEST]: ErrorCode.VALIDATION_FAILED,
  [HttpStatus.UNAUTHORIZED]: ErrorCode.UNAUTHENTICATED,
  [HttpStatus.FORBIDDEN]: ErrorCode.INSUFFICIENT_SCOPE,
  [HttpStatus.NOT_FOUND]: ErrorCode.NOT_FOUND,
  [HttpStatus.PAYLOAD_TOO_LARGE]: ErrorCode.PAYLOAD_TOO_LARGE,
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  [HttpStatus.TOO_MANY_REQUESTS]: ErrorCode.RATE_LIMITED,
  [HttpStatus.SERVICE_UNAVAILABLE]: ErrorCode.SERVICE_UNAVAILABLE,
};

const DETAIL_BY_CODE = new Map<ErrorCode, string>([
  [ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than the configured limit.'],
  [ErrorCode.NOT_FOUND, 'No such resource.'],
  [ErrorCode.INTERNAL_ERROR, 'An unexpected error occurred. Quote the X-Request-Id when reporting it.'],
]);
const DATABASE_UNAVAILABLE_DETAIL = 'The database is unreachable. Retry later.';
const DATABASE_WAIT_DETAIL: Record<DatabaseWait, string> = {
  pool: 'The service is busy: no database connection became free in time. Retry later.',
  statement: 'The database did not answer in time: the request waited too long, for a lock another session holds or on an overloaded database. Retry later.',
  transaction: 'The request took longer than its database transaction may, and the transaction was rolled back. Retry later.',
  contention: 'The request met a concurrent change of the same records (a deadlock or serialization failure) and was rolled back. Retry.',
};
const UNSTORABLE_TEXT_DETAIL = 'The request holds text that cannot be stored (a NUL character).';

/**
 * Maps every failure, known or not, to the API's one error body (or, under a path with an error
 * format of its own, such as SCIM's `/scim/v2`, to that format's body); nothing internal reaches the client.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private readonly formats: readonly ErrorReplyFormat[];

  constructor(
    private readonly outageLog: DatabaseOutageLog,
    registries: Registries,
  ) {
    this.formats = registries.errorReplyFormats;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const format = errorReplyFormatFor(this.formats, request.path);
    const own = format?.replyToOwn?.(exception);
    if (own) return this.send(response, own, format);
    const appError = this.toAppError(exception, request);

    if (appError.status >= 500 && appError.code === ErrorCode.INTERNAL_ERROR.code) {
      this.logger.error(
        `${request.method} ${loggablePath(request)} failed (request ${String(response.getHeader(REQUEST_ID_HEADER) ?? '-')})`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    this.send(response, format ? format.reply(appError) : errorReply(appError), format);
  }

  private send(response: Response, reply: ErrorReply<object>, format: ErrorReplyFormat | undefined): void {
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(reply.headers)) response.setHeader(name, value);
    // res.json keeps a Content-Type set before it (adding the charset).
    if (format) response.setHeader('Content-Type', format.mediaType);
    response.status(reply.status).json(reply.body);
  }

  private toAppError(exception: unknown, request: Request): AppError {
    if (exception instanceof AppError) return exception;
    const wait = databaseWait(exception);
    if (wait) {
      this.logger.warn(`Database busy (${wait} wait): ${exception instanceof Error ? exception.message : String(exception)}`);
      return new AppError(ErrorCode.SERVICE_UNAVAILABLE, DATABASE_WAIT_DETAIL[wait], undefined, { 'Retry-After': RETRY_AFTER_BUSY });
    }
    if (isDatabaseUnavailable(exception)) {
      this.outageLog.unavailable(exception instanceof Error ? exception.message : String(exception));
      return new AppError(ErrorCode.SERVICE_UNAVAILABLE, DATABASE_UNAVAILABLE_DETAIL);
    }
    // A backstop: validation refuses such text with the field named; reaching here means it missed one.
    if (isUnstorableText(exception)) {
      this.logger.warn(`${request.method} ${loggablePath(request)}: the database refused text as unstorable; a validation rule let it through`);
      return new AppError(ErrorCode.VALIDATION_FAILED, UNSTORABLE_TEXT_DETAIL);
    }

    if (exception instanceof HttpException) {
      const code = CODE_BY_HTTP_STATUS[exception.getStatus()];
      if (code) return new AppError(code, DETAIL_BY_CODE.get(code) ?? this.httpExceptionDetail(exception));
    }
    return new AppError(ErrorCode.INTERNAL_ERROR, DETAIL_BY_CODE.get(ErrorCode.INTERNAL_ERROR)!);
  }

  private httpExceptionDetail(exception: HttpException): string {
    const response = exception.getResponse();
    if (typeof response === 'string') return response;
    const message = (response as { message?: unknown }).message;
    return typeof message === 'string' ? message : exception.message;
  }
}
