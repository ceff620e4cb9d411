import type { ThrottlerStorage } from '@nestjs/throttler';

/** What a throttler storage answers for one request (the package does not export the type by name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A rate-limit policy as the RateLimit-Policy header states it: `limit` requests per `windowMs`. */
export interface RateLimitPolicy {
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * The headers of draft-ietf-httpapi-ratelimit-headers-11 (structured fields): the policy, and what
 * is left of it for this key (`r`) and in how many seconds that budget is restored (`t`). A refused
 * request's `t` is its Retry-After, so that the two never disagree.
 */
export function rateLimitHeaders(policy: RateLimitPolicy, record: ThrottlerStorageRecord): Record<string, string> {
  const name = structuredFieldString(policy.name);
  const remaining = Math.max(0, policy.limit - record.totalHits);
  const reset = Math.max(0, record.isBlocked ? record.timeToBlockExpire : record.timeToExpire);
  return {
    'RateLimit-Policy': `${name};q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`,
    RateLimit: `${name};r=${remaining};t=${reset}`,
  };
}

// RFC 9651 sf-string: printable ASCII in double quotes, with " and \ escaped.
function structuredFieldString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`A rate-limit policy name must be printable ASCII: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}
