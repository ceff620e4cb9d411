import type { SqlReads } from './read-replica';
import type { SqlQueries } from './sql-queries';

/**
 * The TransactionHost as a service that speaks only SQL sees it: raw statements (`sql`) and SQL
 * transactions, no model queries. A service declares its data-access kind by what it injects:
 * `SqlHost` (only `txHost.sql`; its statements can run in a SQL transaction) or `TransactionHost`
 * (model queries through `txHost.tx` too). Both are the same instance. A route with
 * `@Idempotent({ sqlOnly: true })` may reach only services of the first kind: the application
 * refuses to start otherwise (common/idempotency/transaction-kind-check.ts), and a `SqlHost`
 * service that reaches for `tx` does not compile.
 */
export abstract class SqlHost {
  /** For raw statements (`Prisma.sql` templates), in the caller's transaction when there is one. */
  abstract readonly sql: SqlQueries;
  /** For raw reads that may lag behind the latest writes: the read replica's when one is set (TransactionHost.replica). */
  abstract readonly replica: SqlReads;
  /** Runs `work`, whose statements all go through `sql`, in a SQL transaction, or in the caller's transaction when there is one. */
  abstract withSqlTransaction<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T>;
}
