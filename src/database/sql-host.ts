import type { SqlReads } from './read-replica';
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
  /** Runs `work`, whose statements all go through `sql`, in one transaction, or in the caller's transaction when there is one. */
  abstract withSqlTransaction<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T>;
}
