import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { Metrics } from '../metrics/metrics';
import { rateLimitHeaders } from '../rate-limit/rate-limit-headers';
import { isPublic } from './api-key-auth.guard';
import type { AuthenticatedRequest } from './principal';

/**
 * Rate limit per API key across all operations (docs/api-conventions.md, Limits). Runs after
 * authentication, so the principal is known. Public routes (liveness and readiness) are never
 * limited: an orchestrator's probes must not be refused.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  // Properties, not constructor parameters: ThrottlerGuard's constructor stays as it is.
  @Inject(Metrics) private readonly metrics!: Metrics;
  @Inject(AppConfig) private readonly config!: AppConfig;

  /**
   * RATE_LIMIT_PER_MINUTE=0 turns rate limiting off: then nothing is counted or looked up at all
   * (the package's own skip comes after its metadata lookups, which cost CPU on every request: docs/adr/0014-a-lean-request-pipeline-on-express.md).
   */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.config.RATE_LIMIT_PER_MINUTE === 0) return Promise.resolve(true);
    return super.canActivate(context);
  }

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

  /**
   * Counts the request and answers with the IETF RateLimit headers instead of the package's
   * X-RateLimit-* ones; a request over the budget is refused with Retry-After besides.
   */
  protected override async handleRequest({ context, limit, ttl, throttler, blockDuration, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    const response = res as Response;
    for (const [header, value] of Object.entries(rateLimitHeaders({ name, limit, windowMs: ttl }, record))) response.setHeader(header, value);
    if (!record.isBlocked) return true;
    this.metrics.rateLimitRefused();
    throw new AppError(
      ErrorCode.RATE_LIMITED,
      `Rate limit of ${limit} requests per ${Math.round(ttl / 1000)} s exceeded for this API key.`,
      undefined,
      { 'Retry-After': String(record.timeToBlockExpire) },
    );
  }
}
