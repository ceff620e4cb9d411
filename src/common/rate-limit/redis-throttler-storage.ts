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
/** After a failed command, the other requests count in memory this long before one tries Redis again. */
const RETRY_INTERVAL_MS = 1000;

/**
 * Rate-limit counters in Redis, shared by every instance, counted by @nest-lab/throttler-storage-redis
 * (one Lua script per request, so that concurrent instances never lose a hit). While Redis is
 * unreachable the requests are counted in this process's memory instead, so that the service
 * keeps serving with a per-instance limit; it logs one warning when that begins and one line when
 * Redis is back, and from then on counts in Redis again. A request never waits on a Redis that
 * is not connected (no offline queue) and at most COMMAND_TIMEOUT_MS on one that does not answer.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly shared: ThrottlerStorageRedisService;
  private readonly local = new ThrottlerStorageService();
  private fallbackSince: Date | undefined;
  private countedLocally = 0;
  private retryRedisAt = 0;

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
    } else if (!this.fallbackSince || this.clock.now().getTime() >= this.retryRedisAt) {
      try {
        const record = await this.shared.increment(key, ttl, limit, blockDuration, throttlerName);
        this.redisIsBack();
        return record;
      } catch (error) {
        this.fallBack(error instanceof Error ? error.message : String(error));
        this.retryRedisAt = this.clock.now().getTime() + RETRY_INTERVAL_MS;
      }
    }
    this.countedLocally++;
    return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
    this.local.onApplicationShutdown();
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
