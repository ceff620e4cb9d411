import { Injectable, Optional } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DatabasePool } from '../../database/database-pool';
import { DatabaseReplica } from '../../database/database-replica';
import type { ReadReplica } from '../../database/read-replica';

/** The route label of a request no route matched (an unknown path, or one refused before routing). */
export const UNMATCHED_ROUTE = '(unmatched)';

// From a cached read (~1 ms) to the longest a request may wait for the database (10 s by default).
const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteSeries {
  duration: Histogram.Internal<'method' | 'route'>;
  countByStatus: Map<number, Counter.Internal>;
}

/**
 * The metrics of one app instance, in a registry of its own (tests run several instances in one
 * process; prom-client's global registry would mix them). Served by MetricsServer.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the arrival of a request to the end of its answer, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  private readonly apiKeyCacheLookups = new Counter({
    name: 'api_key_cache_lookups_total',
    help: 'API keys answered from the verified-key cache (hit) or looked up in the database (miss).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private readonly meteringPolicyCacheLookups = new Counter({
    name: 'metering_policy_cache_lookups_total',
    help: 'Metering policies answered fresh from memory (hit) or read from the database (miss).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private readonly idempotencyReplays = new Counter({
    name: 'idempotency_replays_total',
    help: 'Writes answered with the stored response of an earlier request with the same Idempotency-Key.',
    registers: [this.registry],
  });

  private readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 because their API key used up its rate limit.',
    registers: [this.registry],
  });

  // prom-client resolves the labels on every call; a route's series are resolved once instead.
  private readonly seriesByRoute = new Map<string, RouteSeries>();

  constructor(pool: DatabasePool, @Optional() database?: DatabaseReplica) {
    if (pool.poolUsage()) registerPoolGauges(this.registry, pool);
    if (database?.replica) registerReplicaGauges(this.registry, database.replica);
  }

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let series = this.seriesByRoute.get(key);
    if (!series) {
      series = { duration: this.requestDuration.labels(method, route), countByStatus: new Map() };
      this.seriesByRoute.set(key, series);
    }
    let count = series.countByStatus.get(status);
    if (!count) {
      count = this.requests.labels(method, route, String(status));
      series.countByStatus.set(status, count);
    }
    count.inc();
    series.duration.observe(seconds);
  }

  apiKeyCacheLookup(hit: boolean): void {
    this.apiKeyCacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  meteringPolicyCacheLookup(hit: boolean): void {
    this.meteringPolicyCacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  idempotencyReplayed(): void {
    this.idempotencyReplays.inc();
  }

  rateLimitRefused(): void {
    this.rateLimitRefusals.inc();
  }
}

/** The PostgreSQL pool's state, read when scraped (the embedded database has no pool). */
function registerPoolGauges(registry: Registry, pool: DatabasePool): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL connections of this instance, in use by a request or idle in the pool.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const usage = pool.poolUsage();
      if (!usage) return;
      this.set({ state: 'in_use' }, usage.inUse);
      this.set({ state: 'idle' }, usage.idle);
    },
  });
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Requests waiting for a free PostgreSQL connection of this instance.',
    registers: [registry],
    collect() {
      this.set(pool.poolUsage()?.waiting ?? 0);
    },
  });
}

/** The read replica's pool and whether its reads go to the primary, read when scraped (only with DATABASE_REPLICA_URL). */
function registerReplicaGauges(registry: Registry, replica: ReadReplica): void {
  new Gauge({
    name: 'db_replica_pool_connections',
    help: 'Read replica connections of this instance, in use by a request or idle in the pool.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const usage = replica.poolUsage();
      this.set({ state: 'in_use' }, usage.inUse);
      this.set({ state: 'idle' }, usage.idle);
    },
  });
  new Gauge({
    name: 'db_replica_reads_on_primary',
    help: '1 while the read replica is unreachable and its reads go to the primary, else 0.',
    registers: [registry],
    collect() {
      this.set(replica.isOut ? 1 : 0);
    },
  });
}
