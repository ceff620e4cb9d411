import { AsyncResource } from 'node:async_hooks';
import type { SqlHost } from '../../database/sql-host';

/** Thrown inside the held transaction to roll it back; never leaves this module. */
class RollBack extends Error {}

/**
 * A SQL transaction kept open across callbacks, for work that begins in one place (the multipart
 * body arriving) and ends in another (the service deciding to keep the upload): its statements are
 * sent from inside `run()`, and it ends with exactly one of `commit()` or `rollBack()` (later calls
 * are no-ops). Its length is bounded by the caller (an upload's request), not by TRANSACTION_TIMEOUT_MS.
 */
export class HeldTransaction {
  private decide!: (keep: boolean) => void;
  private ended: Promise<void> | undefined;

  private constructor(
    private readonly scope: AsyncResource,
    private readonly outcome: Promise<void>,
  ) {}

  static async begin(txHost: SqlHost): Promise<HeldTransaction> {
    let opened!: (scope: AsyncResource) => void;
    let decision!: Promise<boolean>;
    let decide!: (keep: boolean) => void;
    const scopeReady = new Promise<AsyncResource>((resolve) => (opened = resolve));
    decision = new Promise<boolean>((resolve) => (decide = resolve));
    const outcome = txHost.withSqlTransaction(async () => {
      // Made inside the transaction, it carries the transaction's context to run() (txHost.sql is the transaction's there).
      opened(new AsyncResource('HeldTransaction'));
      if (!(await decision)) throw new RollBack();
    }, Number.POSITIVE_INFINITY);
    // Opening can fail (no connection): then the outcome settles before the scope is handed over.
    const scope = await Promise.race([scopeReady, outcome.then(() => Promise.reject(new Error('The transaction ended before it opened')))]);
    const held = new HeldTransaction(scope, outcome);
    held.decide = decide;
    return held;
  }

  /** Runs `work` in the transaction: the statements it sends through `txHost.sql` (repositories) are the transaction's. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.scope.runInAsyncScope(work);
  }

  /** Commits what was written; rejects (and nothing is kept) when the commit fails. */
  commit(): Promise<void> {
    return this.end(true);
  }

  /** Rolls back; never rejects (a broken connection has rolled the transaction back already). */
  async rollBack(): Promise<void> {
    await this.end(false).catch(() => undefined);
  }

  private end(keep: boolean): Promise<void> {
    if (!this.ended) {
      this.decide(keep);
      this.ended = this.outcome.catch((error: unknown) => {
        if (!(error instanceof RollBack)) throw error;
      });
    }
    return this.ended;
  }
}
