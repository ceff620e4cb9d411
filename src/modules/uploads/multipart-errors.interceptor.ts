import { BadRequestException, CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor, PayloadTooLargeException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, throwError, type Observable } from 'rxjs';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { AppConfig } from '../../config/app-config';

/** The largest file multer accepts; the limit of the upload's kind is checked once the form is read. */
export function largestUploadBytes(config: AppConfig): number {
  return Math.max(config.PACKAGE_UPLOAD_LIMIT_BYTES, config.ICON_UPLOAD_LIMIT_BYTES);
}

/**
 * Bound before FileInterceptor: turns the errors multer reports while reading the multipart body
 * into the contract's codes (a file over the limit is 413 PAYLOAD_TOO_LARGE, a malformed form 400).
 * A client that closes the connection in the middle of its upload is a warning, not a fault: the
 * upload is dropped and no answer can reach it.
 */
@Injectable()
export class MultipartErrorsInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Uploads');

  constructor(private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    // Closed while authentication ran: multer would wait for events that have passed.
    if (request.destroyed) return throwError(() => this.brokenOff(request, response));
    return next.handle().pipe(catchError((error: unknown) => throwError(() => this.translate(error, request, response))));
  }

  private brokenOff(request: Request, response: Response): AppError {
    // Unless this service ended it (the stall timeout answered already).
    if (!response.headersSent) {
      this.logger.warn(`Upload broken off by the client after ${request.socket.bytesRead} bytes of the request; nothing of it was kept.`);
    }
    return AppError.validation('file', 'invalid_value', 'The connection closed before the multipart form ended; nothing was kept.');
  }

  private translate(error: unknown, request: Request, response: Response): unknown {
    // multer reports the connection closing under it as 'Request aborted' or 'Request closed'.
    if (!request.complete && request.destroyed && !(error instanceof AppError)) return this.brokenOff(request, response);
    if (error instanceof PayloadTooLargeException) {
      return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `file: an upload may be at most ${largestUploadBytes(this.config)} bytes.`);
    }
    if (error instanceof BadRequestException) {
      return AppError.validation('file', 'invalid_value', `The multipart form could not be read: ${error.message}.`);
    }
    return error;
  }
}
