import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { openingTransactionTimeout } from './transaction-deadline';
import { DeadlineClient, WaitingStatements, type DeadlineSettings } from './deadline-client';
import { PipelinedClient } from './pipelined-client';

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
const RETIRED = new Error('A cancel request may still reach this connection: it is closed rather than reused');

/** A statement running longer than this fraction of the statement timeout counts as waiting (WaitingStatements). */
const SLOW_FRACTION = 20;
const MIN_SLOW_AFTER_MS = 100;

/** A quarter of the pool (at least one connection) is kept from statements that wait long. */
export function waitingStatementsLimit(poolSize: number): number {
  return Math.max(1, poolSize - Math.ceil(poolSize / 4));
}

type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, release: (release?: unknown) => void) => void;

export interface PostgresPoolConfig extends PoolConfig, DeadlineSettings {
  max: number;
  connectionTimeoutMillis: number;
  /** Deadline of a transaction: a connection checked out with `connect()` (not `query`) holds one. */
  transactionTimeoutMs: number;
}

/**
 * pg's Pool over PipelinedClient connections (every statement has a deadline, a transaction's BEGIN
 * goes with its first statement), telling a request
 * that waited for a busy pool (DatabaseBusyError) from one that could not open a connection (pg's
 * own timeout error, an outage). Both the promise and the callback form of connect are covered:
 * the Prisma adapter uses the first for a transaction, `pool.query` the second for one statement.
 * A connection checked out with the promise form (a transaction) gets the transaction's deadline
 * (TRANSACTION_TIMEOUT_MS, or the one its opener set in openingTransactionTimeout)
 * until it is released.
 */
export class PostgresPool extends Pool {
  private readonly size: number;
  private readonly waitMs: number;
  private readonly transactionTimeoutMs: number;

  constructor(config: PostgresPoolConfig) {
    super({
      ...config,
      Client: PipelinedClient as unknown as new () => PipelinedClient,
      waitingStatements: new WaitingStatements(waitingStatementsLimit(config.max), Math.max(MIN_SLOW_AFTER_MS, config.statementTimeoutMs / SLOW_FRACTION)),
    } as PoolConfig);
    this.size = config.max;
    this.waitMs = config.connectionTimeoutMillis;
    this.transactionTimeoutMs = config.transactionTimeoutMs;
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    if (!callback) {
      return super.connect().then(
        (client) => {
          (client as unknown as DeadlineClient).beginTransaction(openingTransactionTimeout.getStore() ?? this.transactionTimeoutMs);
          return this.retiringWhenCancelled(client);
        },
        (error: Error) => Promise.reject(this.explain(error)),
      );
    }
    super.connect((error, client, release) => {
      if (error || !client) return callback(error ? this.explain(error) : undefined, client, release);
      const wrapped = this.retiringWhenCancelled(client);
      callback(undefined, wrapped, (error) => wrapped.release(error as Error | boolean | undefined));
    });
  }

  /** Released with an error (so the pool closes it) when a cancel request may still be on its way. */
  private retiringWhenCancelled(client: PoolClient): PoolClient {
    const release = client.release;
    client.release = (error?: Error | boolean) => release(error || ((client as unknown as DeadlineClient).endTransaction() ? RETIRED : undefined));
    return client;
  }

  private explain(error: Error): Error {
    const waitedForBusyPool = error.message === PG_POOL_TIMEOUT_MESSAGE && this.totalCount >= this.size;
    return waitedForBusyPool ? new DatabaseBusyError(this.waitMs) : error;
  }
}
