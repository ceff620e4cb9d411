import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import type { Prisma } from '../generated/prisma/client';
import { inlineStatement } from './inline-statement';
import { adapterQueries, type SqlQueries } from './sql-queries';
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
 * per-statement request pipeline (docs/performance.md). Every raw statement goes through it
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
   * than `timeoutMs` for work whose caller bounds it another way.
   */
  async transaction<T>(work: (queries: SqlQueries) => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    const startedAt = performance.now();
    const transaction = await (timeoutMs === this.timeoutMs
      ? this.adapter.startTransaction()
      : openingTransactionTimeout.run(timeoutMs, () => this.adapter.startTransaction()));
    const queries = new TransactionQueries(transaction, !transaction.options.usePhantomQuery);
    let result: T;
    try {
      result = await work(queries);
      if (performance.now() - startedAt > timeoutMs) throw new SqlTransactionTimeoutError(timeoutMs);
    } catch (error) {
      await rollBack(transaction);
      throw error;
    }
    await commit(transaction, queries.last);
    return result;
  }
}

/**
 * A transaction's statements. Its last (executeLast) is held back for commit() to send with the
 * COMMIT, one round trip fewer while the transaction holds its locks (docs/performance.md), or
 * runs when it is called on PGlite, whose transactions commit by themselves. Either way nothing
 * may follow it.
 */
class TransactionQueries implements SqlQueries {
  last: Prisma.Sql | undefined;
  private lastSent = false;
  private readonly queries: SqlQueries;

  constructor(
    transaction: Transaction,
    private readonly lastWithCommit: boolean,
  ) {
    this.queries = adapterQueries(transaction);
  }

  query<T>(statement: Prisma.Sql): Promise<T[]> {
    this.refuseAfterLast();
    return this.queries.query<T>(statement);
  }

  execute(statement: Prisma.Sql): Promise<number> {
    this.refuseAfterLast();
    return this.queries.execute(statement);
  }

  executeLast(statement: Prisma.Sql): Promise<void> {
    this.refuseAfterLast();
    this.lastSent = true;
    if (!this.lastWithCommit) return this.queries.executeLast(statement);
    this.last = statement;
    return Promise.resolve();
  }

  private refuseAfterLast(): void {
    if (this.lastSent) throw new Error("A statement was sent after the transaction's last one (executeLast)");
  }
}

/**
 * An adapter whose transactions are not "phantom" (pg) sent BEGIN itself and leaves COMMIT and
 * ROLLBACK to its caller; commit() and rollback() then only hand the connection back. PGlite's
 * are phantom: its own transaction() issues both.
 *
 * `last` goes in the same simple-protocol query as the COMMIT, its values written in as literals
 * (a query of several statements takes no parameters). When it fails PostgreSQL skips the COMMIT
 * and the transaction stays open, aborted: it is rolled back before the connection is handed back.
 */
async function commit(transaction: Transaction, last: Prisma.Sql | undefined): Promise<void> {
  if (!transaction.options.usePhantomQuery) {
    try {
      await transaction.executeRaw({ sql: last ? `${inlineStatement(last)};\nCOMMIT` : 'COMMIT', ...NO_ARGS });
    } catch (error) {
      await rollBack(transaction);
      throw error;
    }
  }
  await transaction.commit();
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
