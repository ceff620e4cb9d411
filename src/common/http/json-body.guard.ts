import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { routeMetadata } from '../routing/route-metadata';
import { jsonBodyReader, type JsonBodyReader } from './json-body-parser';

const ACCEPTS_MULTIPART = 'http:accepts-multipart';
const JSON_MEDIA_TYPES = 'http:json-media-types';

/** Marks a route that takes multipart/form-data instead of JSON (uploads). */
export const AcceptsMultipart = () => SetMetadata(ACCEPTS_MULTIPART, true);

/** The JSON media types a route's (or controller's) body may be sent in, when not application/json alone (SCIM: application/scim+json too). */
export const AcceptsJsonMediaTypes = (...mediaTypes: [string, ...string[]]) => SetMetadata(JSON_MEDIA_TYPES, mediaTypes);

const APPLICATION_JSON: readonly string[] = ['application/json'];

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads the body of a write: it must be a JSON object, in application/json or a JSON media type the
 * route names (or multipart where the route says so, which the route's own interceptor reads);
 * another media type is 415 rather than being silently read as
 * an empty body. The last global guard, so the body is read only once authentication, the rate
 * limit and the scope have let the request through (401, 429 and 403 come first and cost no
 * decoding); a guard, not an interceptor, so that routes without a body run no observable chain.
 * Bodies of other methods are never read (Node discards them).
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  private readonly readJsonBody: JsonBodyReader;

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
  ) {
    this.readJsonBody = jsonBodyReader(config.JSON_BODY_LIMIT_BYTES);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!METHODS_WITH_BODY.has(request.method) || !hasBody(request)) return true;
    if (routeMetadata<boolean>(this.reflector, ACCEPTS_MULTIPART, context) === true) {
      if (!request.is('multipart/form-data')) throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The request body must be multipart/form-data.');
      return true;
    }
    const mediaTypes = routeMetadata<readonly string[]>(this.reflector, JSON_MEDIA_TYPES, context) ?? APPLICATION_JSON;
    if (!request.is(mediaTypes as string[])) throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `The request body must be ${mediaTypes.join(' or ')}.`);
    return this.readJsonObject(request, context.switchToHttp().getResponse<Response>());
  }

  private async readJsonObject(request: Request, response: Response): Promise<boolean> {
    await this.readJsonBody(request, response);
    // The JSON parser also accepts a top-level array, which no operation takes.
    if (Array.isArray(request.body)) throw AppError.validation('body', 'invalid_type', 'The request body must be a JSON object.');
    return true;
  }
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
