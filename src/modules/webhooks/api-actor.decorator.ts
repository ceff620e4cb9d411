import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { principalOf, type AuthenticatedRequest } from '../../common/auth/principal';
import type { ApiActor } from './endpoint-audit-event';

/** Who is making this change, for its audit event: the caller's API key and the request's X-Request-Id. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): ApiActor => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  const requestId = request.headers['x-request-id'];
  return { apiKeyId: principalOf(request).apiKeyId, requestId: typeof requestId === 'string' ? requestId : null };
});
