import { Injectable, Optional } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseReplica } from './database-replica';
import type { SqlReads } from './read-replica';
import { SqlDriver } from './sql-driver';
import type { SqlHost } from './sql-host';
import type { Prisma } from '../generated/prisma/client';
import type { SqlQueries, TransactionQueries } from './sql-queries';

/**
 * The one way code reaches the database (docs/database-access.md, "One way to the database"):
 * `Prisma.sql` statements on the driver adapter (docs/adr/0002-hot-statements-on-the-sql-driver-adapter.md),
 * in the transaction the caller is in or on their own outside one, so that a write joins a
 * transaction opened further up (the idempotency record and the department commit together)
 * without a connection being passed through every call. Request context is kept only inside a
 * transaction: nothing runs per request. Repositories inject it as `SqlHost`.
 *
 * `replica` is for reads that may lag behind the latest writes (lists, the metering policy): on
 * DATABASE_REPLICA_URL when one is set, else the same as `sql`; inside a transaction it is the
 * transaction's, so a read within a write always sees the primary.
 */
@Injectable()
export class TransactionHost implements SqlHost {
  private readonly current = new AsyncLocalStorage<TransactionQueries>();
  private readonly replicaReads: SqlReads;

  constructor(
    private readonly driver: SqlDriver,
    @Optional() database?: DatabaseReplica,
  ) {
    this.replicaReads = database?.replica ?? driver.queries;
  }

  get sql(): SqlQueries {
    return this.current.getStore() ?? this.driver.queries;
  }

  get replica(): SqlReads {
    return this.current.getStore() ?? this.replicaReads;
  }

  /** Inside a transaction, sends `statement` with its COMMIT (TransactionQueries.executeAtCommit). */
  executeAtCommit(statement: Prisma.Sql): void {
    const transaction = this.current.getStore();
    if (!transaction) throw new Error('executeAtCommit is for a statement inside a transaction');
    transaction.executeAtCommit(statement);
  }

  /**
   * Runs `work` in one transaction, or in the caller's transaction when there is one; committed
   * when it returns (or with its `sql.queryAndCommit`), rolled back when it throws. `timeoutMs`
   * replaces TRANSACTION_TIMEOUT_MS for work that is bounded otherwise (an upload received into its
   * transaction ends with its request).
   */
  withSqlTransaction<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T> {
    const owner = this.current.getStore();
    if (owner) return this.current.run(joined(owner), work);
    return this.driver.transaction((sql) => this.current.run(sql, work), timeoutMs);
  }
}

/** The caller's transaction as work that joins it sees it: its `queryAndCommit` does not end it, since the caller's work goes on after. */
function joined(owner: TransactionQueries): TransactionQueries {
  return {
    query: (statement) => owner.query(statement),
    execute: (statement) => owner.execute(statement),
    executeAtCommit: (statement) => owner.executeAtCommit(statement),
    queryAndCommit: (statement) => owner.query(statement),
  };
}
