import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { principalOf, type AuthenticatedRequest } from '../auth/principal';

/**
 * Who made a change, as its audit event records it: an API key (with the request's X-Request-Id)
 * or the admin CLI. Controllers take it with `@CurrentActor()` and hand it to the service beside
 * the organization; the CLI passes CLI_ACTOR.
 */
export type AuditActor =
  | { readonly type: 'api_key'; readonly apiKeyId: string; readonly requestId: string | null }
  | { readonly type: 'cli'; readonly apiKeyId: null; readonly requestId: null };

export const CLI_ACTOR: AuditActor = { type: 'cli', apiKeyId: null, requestId: null };

/** The actor of an authenticated request: its API key (ApiKeyAuthGuard's principal) and its X-Request-Id (requestIdMiddleware). */
export function actorOf(request: AuthenticatedRequest): AuditActor {
  const requestId = request.headers['x-request-id'];
  return { type: 'api_key', apiKeyId: principalOf(request).apiKeyId, requestId: typeof requestId === 'string' ? requestId : null };
}

/** The caller as the audit trail names it. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): AuditActor =>
  actorOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);
