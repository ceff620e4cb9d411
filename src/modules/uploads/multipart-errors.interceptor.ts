import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor, PayloadTooLargeException } from '@nestjs/common';
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
 */
@Injectable()
export class MultipartErrorsInterceptor implements NestInterceptor {
  constructor(private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(catchError((error: unknown) => throwError(() => this.translate(error))));
  }

  private translate(error: unknown): unknown {
    if (error instanceof PayloadTooLargeException) {
      return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `file: an upload may be at most ${largestUploadBytes(this.config)} bytes.`);
    }
    if (error instanceof BadRequestException) {
      return AppError.validation('file', 'invalid_value', `The multipart form could not be read: ${error.message}.`);
    }
    return error;
  }
}
