import type { SqlDriverAdapter, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import type { Prisma } from '../generated/prisma/client';
import { adapterQueries, toSqlQuery, type SqlQueries, type TransactionQueries } from './sql-queries';
import { openingTransactionTimeout } from './transaction-deadline';

/** A SQL transaction ran past TRANSACTION_TIMEOUT_MS, so it was rolled back instead of committed. */
export class SqlTransactionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The transaction took longer than ${timeoutMs} ms and was rolled back`);
    this.name = 'SqlTransactionTimeoutError';
  }
}

const NO_ARGS = { args: [], argTypes: [] };

/**
 * Raw SQL on Prisma's driver adapter for the database (`@prisma/adapter-pg` over the pool, or the
 * PGlite adapter): the same connections and the same conversions as the Prisma client, without its
 * per-statement request pipeline (docs/adr/0002-hot-statements-on-the-sql-driver-adapter.md). Every raw statement goes through it
 * (txHost.sql); model queries stay on the client.
 */
export class SqlDriver {
  readonly queries: SqlQueries;

  constructor(
    private readonly adapter: SqlDriverAdapter,
    private readonly timeoutMs: number,
  ) {
    this.queries = adapterQueries(adapter);
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it returns, rolled back when
   * it throws or when it took longer than the transaction timeout (as the Prisma client does), or
   * than `timeoutMs` for work whose caller bounds it another way. The statements `work` kept with
   * `executeAtCommit` are sent with the COMMIT.
   */
  async transaction<T>(work: (queries: TransactionQueries) => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    const startedAt = performance.now();
    const transaction = await (timeoutMs === this.timeoutMs
      ? this.adapter.startTransaction()
      : openingTransactionTimeout.run(timeoutMs, () => this.adapter.startTransaction()));
    const atCommit: Prisma.Sql[] = [];
    let result: T;
    try {
      result = await work({ ...adapterQueries(transaction), executeAtCommit: (statement) => void atCommit.push(statement) });
      if (performance.now() - startedAt > timeoutMs) throw new SqlTransactionTimeoutError(timeoutMs);
    } catch (error) {
      await rollBack(transaction);
      throw error;
    }
    await commit(transaction, atCommit);
    return result;
  }
}

/**
 * An adapter whose transactions are not "phantom" (pg) sent BEGIN itself and leaves COMMIT and
 * ROLLBACK to its caller; commit() and rollback() then only hand the connection back. PGlite's
 * are phantom: its own transaction() issues both.
 *
 * On pg, the `last` statements and the COMMIT are sent together, before any answer (the pool's
 * connections are pipelined: PipelinedClient): one round trip, in which the transaction's locks
 * are still held. When one of them fails, PostgreSQL answers the COMMIT by rolling back.
 */
async function commit(transaction: Transaction, last: Prisma.Sql[]): Promise<void> {
  try {
    if (transaction.options.usePhantomQuery) {
      for (const statement of last) await transaction.executeRaw(toSqlQuery(statement));
    } else {
      await sendTogether(transaction, [...last.map(toSqlQuery), { sql: 'COMMIT', ...NO_ARGS }]);
    }
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
  await transaction.commit();
}

/** Sends every statement before reading any answer; fails with the first that failed, once all are answered. */
async function sendTogether(transaction: Transaction, statements: SqlQuery[]): Promise<void> {
  const answers = await Promise.allSettled(statements.map((statement) => transaction.executeRaw(statement)));
  const failed = answers.find((answer) => answer.status === 'rejected');
  if (failed) throw failed.reason;
}

async function rollBack(transaction: Transaction): Promise<void> {
  try {
    if (!transaction.options.usePhantomQuery) await transaction.executeRaw({ sql: 'ROLLBACK', ...NO_ARGS });
  } catch {
    // The connection broke: the server has rolled the transaction back already. The error that got
    // here is the one to report.
  } finally {
    await transaction.rollback();
  }
}
