import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { routeMetadata } from '../routing/route-metadata';
import { isPublic } from './api-key-auth.guard';
import { REQUIRED_SCOPE } from './auth.decorators';
import { principalOf, type AuthenticatedRequest } from './principal';

/**
 * Lets a request through only when its key holds the scope the operation declares with
 * @RequireScope. A route that declares none and is not @Public is denied: fail closed.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (isPublic(this.reflector, context)) return true;
    const required = routeMetadata<string>(this.reflector, REQUIRED_SCOPE, context);
    if (!required) {
      throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, 'This operation declares no scope and is closed to every key.');
    }
    const principal = principalOf(context.switchToHttp().getRequest<AuthenticatedRequest>());
    if (!principal.scopes.includes(required)) {
      throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, `This operation requires the scope ${required}.`);
    }
    return true;
  }
}
