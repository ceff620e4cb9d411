import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Redis } from 'ioredis';
import type { Clock } from '../clock';
import type { ThrottlerStorageRecord } from './rate-limit-headers';

/** Longest start-up waits for Redis before it serves with the in-memory counters meanwhile. */
const CONNECT_WAIT_MS = 3000;
/** Longest a request waits on a Redis that is connected but does not answer (hung, overloaded). */
const COMMAND_TIMEOUT_MS = 500;
/** After a failed command, requests count in memory this long; then one request at a time tries Redis again. */
const RETRY_INTERVAL_MS = 1000;

/**
 * Rate-limit counters in Redis, shared by every instance, counted by @nest-lab/throttler-storage-redis
 * (one Lua script per request, so that concurrent instances never lose a hit). While Redis is
 * unreachable the requests are counted in this process's memory instead, so that the service
 * keeps serving with a per-instance limit; it logs one warning when that begins and one line when
 * Redis is back, and from then on counts in Redis again. A request never waits on a Redis that
 * is not connected (no offline queue) and at most COMMAND_TIMEOUT_MS on one that does not answer.
 * A circuit breaker: once a command failed, no request asks Redis for RETRY_INTERVAL_MS, then one
 * request (the probe) does while the others keep counting in memory; the requests that were waiting
 * on Redis when the first command failed are released with it. So a frozen Redis costs one command
 * timeout per retry interval, not one per concurrent request.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly shared: ThrottlerStorageRedisService;
  private readonly local = new ThrottlerStorageService();
  private fallbackSince: Date | undefined;
  private countedLocally = 0;
  private retryRedisAt = 0;
  /** True while the one request of a retry interval is asking Redis whether it answers again. */
  private probing = false;
  /** Resolved when a Redis command fails, releasing the requests still waiting on theirs. */
  private redisFailed = deferred();

  private constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
  ) {
    this.shared = new ThrottlerStorageRedisService(redis);
    // A connection error is an event, not a rejected promise: without a listener ioredis prints each one.
    redis.on('error', (error: Error) => this.fallBack(error.message));
    redis.on('ready', () => this.redisIsBack());
  }

  /** Connects to `url`, waiting up to CONNECT_WAIT_MS; a Redis still unreachable then is retried in the background. */
  static async connect(url: string, keyPrefix: string, clock: Clock): Promise<RedisThrottlerStorage> {
    const redis = new Redis(url, {
      keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
    });
    const storage = new RedisThrottlerStorage(redis, clock);
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), CONNECT_WAIT_MS);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (ready) storage.logger.log(`Rate limits are shared through Redis at ${redis.options.host}:${redis.options.port}`);
    else storage.fallBack(`no connection within ${CONNECT_WAIT_MS} ms of start-up`);
    return storage;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    if (this.redis.status !== 'ready') {
      this.fallBack(`the connection is ${this.redis.status}`);
    } else if (!this.fallbackSince) {
      const outcome = await this.askRedis(key, ttl, limit, blockDuration, throttlerName);
      if (outcome) return outcome;
    } else if (!this.probing && this.clock.now().getTime() >= this.retryRedisAt) {
      // The one request of this retry interval that tries Redis again; the others count in memory meanwhile.
      this.probing = true;
      try {
        const outcome = await this.askRedis(key, ttl, limit, blockDuration, throttlerName);
        if (outcome) return outcome;
      } finally {
        this.probing = false;
      }
    }
    this.countedLocally++;
    return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
  }
  onApplicationShutdown(): void {
    this.redis.disconnect();
    this.local.onApplicationShutdown();
  }

  /**
   * Counts in Redis; undefined when Redis failed. The first command that fails (or times out) also
   * releases every request still waiting on Redis, so that a Redis that stops answering costs the
   * requests in flight at most one command timeout together, not one each.
   */
  private async askRedis(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord | undefined> {
    const released = this.redisFailed.promise;
    const outcome = await Promise.race([
      this.shared.increment(key, ttl, limit, blockDuration, throttlerName).then(
        (record) => ({ record }),
        (error: unknown) => ({ error }),
      ),
      released,
    ]);
    if ('record' in outcome) {
      this.redisIsBack();
      return outcome.record;
    }
    if ('error' in outcome) this.failed(outcome.error instanceof Error ? outcome.error.message : String(outcome.error));
    return undefined;
  }

  private failed(cause: string): void {
    this.fallBack(cause);
    this.retryRedisAt = this.clock.now().getTime() + RETRY_INTERVAL_MS;
    this.redisFailed.resolve({ released: true });
    this.redisFailed = deferred();
  }

  private fallBack(cause: string): void {
    if (this.fallbackSince) return;
    this.fallbackSince = this.clock.now();
    this.countedLocally = 0;
    this.logger.warn(`Redis unavailable, rate limits are counted in this instance's memory until it is back: ${cause}`);
  }

  private redisIsBack(): void {
    if (!this.fallbackSince) return;
    const seconds = (this.clock.now().getTime() - this.fallbackSince.getTime()) / 1000;
    this.logger.log(`Redis available again after ${seconds.toFixed(1)} s; rate limits are shared through it again (${this.countedLocally} requests were counted in memory)`);
    this.fallbackSince = undefined;
  }
}

interface Deferred {
  promise: Promise<{ released: true }>;
  resolve(value: { released: true }): void;
}

function deferred(): Deferred {
  let resolve!: (value: { released: true }) => void;
  const promise = new Promise<{ released: true }>((settle) => (resolve = settle));
  return { promise, resolve };
}
