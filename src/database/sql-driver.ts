import type { SqlDriverAdapter, SqlQuery, SqlResultSet, Transaction } from '@prisma/driver-adapter-utils';
import type { Prisma } from '../generated/prisma/client';
import { adapterQueries, rowsOf, toSqlQuery, type SqlQueries, type TransactionQueries } from './sql-queries';
import { openingTransactionTimeout } from './transaction-deadline';

/** A SQL transaction ran past TRANSACTION_TIMEOUT_MS, so it was rolled back instead of committed. */
export class SqlTransactionTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The transaction took longer than ${timeoutMs} ms and was rolled back`);
    this.name = 'SqlTransactionTimeoutError';
  }
}

const NO_ARGS = { args: [], argTypes: [] };
const COMMIT: SqlQuery = { sql: 'COMMIT', ...NO_ARGS };

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
   * `executeAtCommit` are sent with the COMMIT; so is the statement of its `queryAndCommit`, which
   * ends the transaction there.
   */
  async transaction<T>(work: (queries: TransactionQueries) => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    const startedAt = performance.now();
    const transaction = await (timeoutMs === this.timeoutMs
      ? this.adapter.startTransaction()
      : openingTransactionTimeout.run(timeoutMs, () => this.adapter.startTransaction()));
    const open = new OpenTransaction(transaction, startedAt, timeoutMs);
    let result: T;
    try {
      result = await work(open);
      if (!open.ended) open.checkTime();
    } catch (error) {
      if (!open.ended) await open.rollBack();
      throw error;
    }
    if (!open.ended) await open.commit();
    return result;
  }
}

/**
 * The statements of one transaction on pg or PGlite (TransactionQueries), until it ends. An
 * adapter whose transactions are not "phantom" (pg) sent BEGIN itself and leaves COMMIT and
 * ROLLBACK to its caller; its commit() and rollback() then only hand the connection back. PGlite's
 * are phantom: its own transaction() issues both, once `work` has returned.
 *
 * On pg, the last statements and the COMMIT are sent together, before any answer (the pool's
 * connections are pipelined: PipelinedClient): one round trip, in which the transaction's locks
 * are still held. When one of them fails, PostgreSQL answers the COMMIT by rolling back.
 */
class OpenTransaction implements TransactionQueries {
  /** Committed or rolled back (or sending its COMMIT): nothing is left for its owner to do. */
  ended = false;
  /** Its last statement was sent (queryAndCommit): no statement may follow. */
  private closed = false;
  private readonly queries: SqlQueries;
  private readonly atCommit: Prisma.Sql[] = [];

  constructor(
    private readonly transaction: Transaction,
    private readonly startedAt: number,
    private readonly timeoutMs: number,
  ) {
    this.queries = adapterQueries(transaction);
  }

  /** Throws SqlTransactionTimeoutError once the transaction has run out of time: it must not commit. */
  checkTime(): void {
    if (performance.now() - this.startedAt > this.timeoutMs) throw new SqlTransactionTimeoutError(this.timeoutMs);
  }

  query<T>(statement: Prisma.Sql): Promise<T[]> {
    return this.closed ? Promise.reject(closedError()) : this.queries.query<T>(statement);
  }

  execute(statement: Prisma.Sql): Promise<number> {
    return this.closed ? Promise.reject(closedError()) : this.queries.execute(statement);
  }

  executeAtCommit(statement: Prisma.Sql): void {
    if (this.closed) throw closedError();
    this.atCommit.push(statement);
  }

  async queryAndCommit<T>(statement: Prisma.Sql): Promise<T[]> {
    if (this.closed) throw closedError();
    this.checkTime();
    this.closed = true;
    // PGlite's transaction commits once `work` has returned.
    if (this.transaction.options.usePhantomQuery) return this.queries.query<T>(statement);
    const [answer] = await this.end([toSqlQuery(statement), ...this.atCommit.map(toSqlQuery)], true);
    return rowsOf<T>(answer as SqlResultSet);
  }

  async commit(): Promise<void> {
    if (!this.transaction.options.usePhantomQuery) {
      await this.end(this.atCommit.map(toSqlQuery), false);
      return;
    }
    this.ended = this.closed = true;
    try {
      for (const statement of this.atCommit) await this.transaction.executeRaw(toSqlQuery(statement));
    } catch (error) {
      await this.transaction.rollback();
      throw error;
    }
    await this.transaction.commit();
  }

  async rollBack(): Promise<void> {
    this.ended = this.closed = true;
    try {
      if (!this.transaction.options.usePhantomQuery) await this.transaction.executeRaw({ sql: 'ROLLBACK', ...NO_ARGS });
    } catch {
      // The connection broke: the server has rolled the transaction back already. The error that got
      // here is the one to report.
    } finally {
      await this.transaction.rollback();
    }
  }

  /**
   * Sends `last` and COMMIT before reading any answer, then hands the connection back; fails with
   * the first statement that failed, once all are answered (then the COMMIT rolled back). With
   * `firstAsRows`, the first statement's answer is its rows (queryRaw), which the result starts with.
   */
  private async end(last: SqlQuery[], firstAsRows: boolean): Promise<unknown[]> {
    this.ended = this.closed = true;
    const sent = [...last, COMMIT].map((statement, index) =>
      firstAsRows && index === 0 ? this.transaction.queryRaw(statement) : this.transaction.executeRaw(statement),
    );
    const answers = await Promise.allSettled(sent);
    const failed = answers.find((answer) => answer.status === 'rejected');
    if (failed) {
      await this.transaction.rollback();
      throw failed.reason;
    }
    await this.transaction.commit();
    return answers.map((answer) => (answer as PromiseFulfilledResult<unknown>).value);
  }
}

function closedError(): Error {
  return new Error('The transaction has sent its last statement (queryAndCommit) or ended: no statement may follow');
}
