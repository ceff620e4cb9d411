import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { Metrics } from '../metrics/metrics';

const ONE_MINUTE_MS = 60_000;
const THROTTLER_NAME = 'auth-failures';

/**
 * Limits the requests that fail authentication per client address (`request.ip`, which follows
 * TRUST_PROXY), counted in the same storage as the per-key limits (Redis when configured), so
 * that the budget holds across instances. A valid key is never refused here: it has its own budget.
 */
@Injectable()
export class AuthFailureLimiter {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** What a request that failed authentication gets: its 401, or 429 once its address is over the budget. */
  async refusal(request: Request, unauthenticated: AppError): Promise<AppError> {
    const limit = this.config.AUTH_FAILURE_LIMIT_PER_MINUTE;
    if (limit === 0) return unauthenticated;
    const record = await this.storage.increment(`${THROTTLER_NAME}:ip:${String(request.ip)}`, ONE_MINUTE_MS, limit, ONE_MINUTE_MS, THROTTLER_NAME);
    if (!record.isBlocked) return unauthenticated;
    this.metrics.rateLimitRefused();
    return new AppError(
      ErrorCode.RATE_LIMITED,
      `More than ${limit} requests per minute without a valid API key came from this address.`,
      undefined,
      { 'Retry-After': String(record.timeToBlockExpire) },
    );
  }
}
