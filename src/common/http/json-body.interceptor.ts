import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

const ACCEPTS_MULTIPART = 'http:accepts-multipart';

/** Marks a route that takes multipart/form-data instead of JSON (uploads). */
export const AcceptsMultipart = () => SetMetadata(ACCEPTS_MULTIPART, true);

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * A write that carries a body must send it as a JSON object (or multipart where the route says
 * so); another media type is 415 rather than being silently read as an empty body.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (METHODS_WITH_BODY.has(request.method) && hasBody(request)) {
      const multipart = this.reflector.get<boolean>(ACCEPTS_MULTIPART, context.getHandler()) === true;
      const accepted = multipart ? request.is('multipart/form-data') : request.is('application/json');
      if (!accepted) {
        throw new AppError(
          ErrorCode.UNSUPPORTED_MEDIA_TYPE,
          multipart ? 'The request body must be multipart/form-data.' : 'The request body must be application/json.',
        );
      }
      // The JSON parser also accepts a top-level array, which no operation takes.
      if (!multipart && Array.isArray(request.body)) {
        throw AppError.validation('body', 'invalid_type', 'The request body must be a JSON object.');
      }
    }
    return next.handle();
  }
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
