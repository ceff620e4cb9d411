import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling: the API key and the one organization it belongs to. */
export interface Principal {
  apiKeyId: string;
  organizationId: string;
  scopes: readonly string[];
}

export type AuthenticatedRequest = Request & { principal?: Principal };

export function principalOf(request: AuthenticatedRequest): Principal {
  if (!request.principal) throw new Error('No principal on the request: the route is not behind the API key guard');
  return request.principal;
}

/** The caller's principal, set by ApiKeyAuthGuard. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal =>
  principalOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
