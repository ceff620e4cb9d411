import type { SqlReads } from './read-replica';
import type { Prisma } from '../generated/prisma/client';
import type { SqlQueries } from './sql-queries';

/**
 * How repositories reach the database: raw statements (`sql`), reads that may lag (`replica`) and
 * transactions. The injection token of TransactionHost, its one implementation.
 */
export abstract class SqlHost {
  /** For raw statements (`Prisma.sql` templates), in the caller's transaction when there is one. */
  abstract readonly sql: SqlQueries;
  /** For raw reads that may lag behind the latest writes: the read replica's when one is set (TransactionHost.replica). */
  abstract readonly replica: SqlReads;
  /**
   * Inside a transaction: sends `statement` as its last, together with its COMMIT, once `work` has
   * returned; the transaction commits only if the statement succeeds. For a write whose answer
   * nothing waits for: it saves a round trip while the transaction holds its locks.
   */
  abstract executeAtCommit(statement: Prisma.Sql): void;
  /** Runs `work`, whose statements all go through `sql`, in one transaction, or in the caller's transaction when there is one. */
  abstract withSqlTransaction<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T>;
}
