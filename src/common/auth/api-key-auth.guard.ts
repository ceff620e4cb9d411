import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { routeMetadata } from '../routing/route-metadata';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { IS_PUBLIC, SERVES_DURING_DATABASE_OUTAGE } from './auth.decorators';
import type { AuthenticatedRequest } from './principal';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Authenticates every non-public request by its bearer API key and sets the principal. Runs before
 * the body is read (JsonBodyGuard comes last), so a request without a valid key costs no decoding;
 * its 401s are limited per client address (AuthFailureLimiter).
 */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (isPublic(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const failure = await this.authenticate(request, context);
    if (failure) throw await this.failures.refusal(request, failure);
    return true;
  }

  /** Sets the request's principal, or answers why it has none (a 401). */
  private async authenticate(request: AuthenticatedRequest, context: ExecutionContext): Promise<AppError | undefined> {
    const header = request.headers.authorization;
    if (!header) return unauthenticated('The Authorization header is missing.', 'Bearer');
    if (hasSeveralAuthorizationHeaders(request.rawHeaders)) {
      return unauthenticated('The request has more than one Authorization header.', 'Bearer error="invalid_request"');
    }

    const token = BEARER.exec(header)?.[1];
    if (!token) return unauthenticated('The Authorization header must have the form "Bearer <API key>".', 'Bearer error="invalid_request"');

    const servesDuringOutage = routeMetadata<boolean>(this.reflector, SERVES_DURING_DATABASE_OUTAGE, context) === true;
    const principal = await this.authenticator.authenticate(token, { rememberForOutage: servesDuringOutage });
    if (!principal) return unauthenticated('The API key is not valid or has been revoked.', 'Bearer error="invalid_token"');
    request.principal = principal;
    return undefined;
  }
}

export function isPublic(reflector: Reflector, context: ExecutionContext): boolean {
  return routeMetadata<boolean>(reflector, IS_PUBLIC, context) === true;
}

/**
 * Node keeps only the first of repeated Authorization headers, so two keys (of two organizations,
 * say) would silently authenticate as the first: ambiguous credentials are refused instead.
 */
function hasSeveralAuthorizationHeaders(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}

function unauthenticated(detail: string, challenge: string): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, detail, undefined, { 'WWW-Authenticate': challenge });
}
