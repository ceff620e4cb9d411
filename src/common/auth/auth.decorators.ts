import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';

export const REQUIRED_SCOPE = 'auth:required-scope';
export const IS_PUBLIC = 'auth:public';
export const SERVES_DURING_DATABASE_OUTAGE = 'auth:serves-during-database-outage';
export const REQUIRED_SCOPE_EXTENSION = 'x-required-scope';
export const BEARER_SCHEME = 'api-key';

/**
 * Declares the one scope an operation needs: read by the global ScopeGuard, and written into
 * the OpenAPI document (security requirement and extension; the post-processing adds the
 * 401/403/429/503 answers of every scoped operation). An application whose scope catalog lacks
 * the scope does not start (RequiredScopesCheck).
 */
export function RequireScope(scope: string) {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiBearerAuth(BEARER_SCHEME),
    ApiExtension(REQUIRED_SCOPE_EXTENSION, scope),
  );
}

/** Opens a route to callers without an API key (health checks). Everything else is closed by default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * Marks a read route that can answer from cached data while the database is unreachable. The
 * keys calling it are remembered after each successful check, so that during an outage they are
 * still accepted (for API_KEY_OUTAGE_GRACE_SECONDS after their last check) instead of a 503.
 */
export const ServesDuringDatabaseOutage = () => SetMetadata(SERVES_DURING_DATABASE_OUTAGE, true);
