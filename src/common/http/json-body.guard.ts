import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { routeMetadata } from '../routing/route-metadata';
import { isJsonBody } from './json-body-parser';

const ACCEPTS_MULTIPART = 'http:accepts-multipart';

/** Marks a route that takes multipart/form-data instead of JSON (uploads). */
export const AcceptsMultipart = () => SetMetadata(ACCEPTS_MULTIPART, true);

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * A write that carries a body must send it as a JSON object (or multipart where the route says
 * so); another media type is 415 rather than being silently read as an empty body. A guard, not an
 * interceptor: it runs after the auth guards (401, 429 and 403 come first) and adds no per-request
 * observable chain to routes that have no interceptor of their own.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (METHODS_WITH_BODY.has(request.method) && hasBody(request)) {
      const multipart = routeMetadata<boolean>(this.reflector, ACCEPTS_MULTIPART, context) === true;
      const accepted = multipart ? request.is('multipart/form-data') : isJsonBody(request);
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
    return true;
  }
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
