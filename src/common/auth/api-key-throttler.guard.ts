import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { Metrics } from '../metrics/metrics';
import { isPublic } from './api-key-auth.guard';
import type { AuthenticatedRequest } from './principal';

/**
 * Rate limit per API key across all operations (docs/api-conventions.md, Limits). Runs after
 * authentication, so the principal is known. Public routes (liveness and readiness) are never
 * limited: an orchestrator's probes must not be refused.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  // A property, not a constructor parameter: ThrottlerGuard's constructor stays as it is.
  @Inject(Metrics) private readonly metrics!: Metrics;

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return isPublic(this.reflector, context);
  }

  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const { principal, ip } = request as unknown as AuthenticatedRequest;
    return principal ? `key:${principal.apiKeyId}` : `ip:${String(ip)}`;
  }

  // One budget per key, not one per route as the default key would give.
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    this.metrics.rateLimitRefused();
    throw new AppError(
      ErrorCode.RATE_LIMITED,
      `Rate limit of ${detail.limit} requests per ${Math.round(detail.ttl / 1000)} s exceeded for this API key.`,
      undefined,
      { 'Retry-After': String(detail.timeToBlockExpire) },
    );
  }
}
