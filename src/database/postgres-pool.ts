import { Pool, type PoolClient, type PoolConfig } from 'pg';

/**
 * Every pooled connection stayed busy for the whole wait: the service is overloaded, not cut off
 * from its database. Answered 503 with Retry-After like an outage, but logged as what it is.
 */
export class DatabaseBusyError extends Error {
  constructor(waitMs: number) {
    super(`No pooled database connection became free within ${waitMs} ms`);
    this.name = 'DatabaseBusyError';
  }
}

const PG_POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, release: (release?: unknown) => void) => void;

/**
 * pg's Pool, telling a request that waited for a busy pool (DatabaseBusyError) from one that could
 * not open a connection (pg's own timeout error, an outage). Both the promise and the callback
 * form of connect are covered: the Prisma adapter uses the first, `pool.query` the second.
 */
export class PostgresPool extends Pool {
  private readonly size: number;
  private readonly waitMs: number;

  constructor(config: PoolConfig & { max: number; connectionTimeoutMillis: number }) {
    super(config);
    this.size = config.max;
    this.waitMs = config.connectionTimeoutMillis;
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    if (!callback) return super.connect().catch((error: Error) => Promise.reject(this.explain(error)));
    super.connect((error, client, release) => callback(error ? this.explain(error) : undefined, client, release));
  }

  private explain(error: Error): Error {
    const waitedForBusyPool = error.message === PG_POOL_TIMEOUT_MESSAGE && this.totalCount >= this.size;
    return waitedForBusyPool ? new DatabaseBusyError(this.waitMs) : error;
  }
}
