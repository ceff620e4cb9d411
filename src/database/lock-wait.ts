import { AsyncLocalStorage } from 'node:async_hooks';

/** SQLSTATE of a lock not granted in time: PostgreSQL's for its `lock_timeout`, DeadlineClient's for `withLockWaitLimit`. */
export const LOCK_NOT_AVAILABLE = '55P03';

const limits = new AsyncLocalStorage<number>();

/**
 * Runs `work` with its statements limited to `limitMs` each: on PostgreSQL, DeadlineClient cancels
 * a statement still running by then and it fails with SQLSTATE 55P03. For a statement that may
 * wait on a row another transaction holds (an uncommitted insert of the same unique key) where
 * waiting long is the wrong answer. Unlike `SET LOCAL lock_timeout`, it bounds only these
 * statements, not the rest of the transaction, and costs no statement. The embedded database has
 * one connection, so nothing there waits on another transaction.
 */
export function withLockWaitLimit<T>(limitMs: number, work: () => Promise<T>): Promise<T> {
  return limits.run(limitMs, work);
}

/** The limit `withLockWaitLimit` set for the statement being sent, if any. */
export function lockWaitLimit(): number | undefined {
  return limits.getStore();
}
