import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import { AppError } from '../errors/app-error';

/** The query parameters a route reads: a set of names, or `dto` when a whole-query DTO (validated by the pipe) decides. */
type AcceptedQuery = ReadonlySet<string> | 'dto';

const acceptedByHandler = new WeakMap<object, AcceptedQuery>();

/**
 * Refuses a query parameter the route does not read (400 `unknown_field`, naming it), as unknown
 * body fields are: `/metering-policy?__proto__=1` or a mistyped `pagesize=` must not pass as if
 * understood. A route that takes a query DTO (`@Query() query: SomeDto`) is left to the validation
 * pipe, which refuses unknown names the same way; for the others the names are those of their
 * `@Query('name')` parameters, read once per route. A request without a query string costs one
 * `indexOf`.
 */
@Injectable()
export class QueryParametersGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.url.indexOf('?') === -1) return true;
    const accepted = acceptedQuery(context);
    if (accepted === 'dto') return true;
    for (const name of Object.keys(request.query)) {
      if (!accepted.has(name)) throw AppError.validation(name, 'unknown_field', `${name}: this operation takes no query parameter of this name.`);
    }
    return true;
  }
}

function acceptedQuery(context: ExecutionContext): AcceptedQuery {
  const handler = context.getHandler();
  let accepted = acceptedByHandler.get(handler);
  if (accepted === undefined) {
    const parameters = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, { data?: unknown }>;
    const names = new Set<string>();
    accepted = names;
    for (const [key, { data }] of Object.entries(parameters)) {
      if (key.split(':')[0] !== String(RouteParamtypes.QUERY)) continue;
      if (typeof data !== 'string') {
        accepted = 'dto';
        break;
      }
      names.add(data);
    }
    acceptedByHandler.set(handler, accepted);
  }
  return accepted;
}
