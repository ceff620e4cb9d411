import { connect as connectSocket } from 'node:net';
import { Client, type ClientConfig, type QueryResult } from 'pg';
import { statementDeadlines, type Due } from './deadline-sweeper';
import { LOCK_NOT_AVAILABLE, lockWaitLimit } from './lock-wait';

/** SQLSTATE of a cancelled statement (a cancel request, or the server's own statement_timeout). */
export const QUERY_CANCELED = '57014';
/** SQLSTATE PostgreSQL 17 gives a transaction that ran past its `transaction_timeout`; used here for ours. */
export const TRANSACTION_TIMEOUT = '25P04';

/** After a cancel request, how long the statement may take to end before its connection is cut. */
const CANCEL_GRACE_MS = 2000;
const CANCEL_REQUEST_CODE = 80_877_102;

export interface DeadlineSettings {
  /** Longest one statement may run (or wait for a lock) before it is cancelled. */
  statementTimeoutMs: number;
  /** Shared by the connections of one pool: how many of their statements may wait long at once. */
  waitingStatements?: WaitingStatements;
}

/**
 * The statements of one pool that have run longer than `slowAfterMs` (a hot statement takes
 * milliseconds; one this slow is most likely waiting for a lock). At most `limit` of them may
 * wait at once: the pool's other connections stay free for everything else, so that requests on
 * a table another session holds locked cannot take every connection and starve requests on other
 * tables. A statement that becomes slow when `limit` others wait already is cancelled at once.
 */
export class WaitingStatements {
  private count = 0;

  constructor(
    readonly limit: number,
    readonly slowAfterMs: number,
  ) {}

  enter(): boolean {
    if (this.count >= this.limit) return false;
    this.count++;
    return true;
  }

  leave(): void {
    this.count--;
  }
}

/** An error shaped like the server's own, so that the driver adapter passes its SQLSTATE on unchanged. */
function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

/**
 * A pg client whose every statement has a deadline, kept by the service rather than by session
 * settings: when a statement runs past DATABASE_STATEMENT_TIMEOUT_MS (a lock held by another
 * session, an overloaded server), or past the deadline of the transaction it belongs to (set by
 * the pool when a transaction takes the connection), the client sends PostgreSQL a cancel request
 * (the protocol's own, which PgBouncer forwards too) and the statement fails with SQLSTATE 57014,
 * or 25P04 for a transaction's deadline. No `SET` is sent and no startup parameter: nothing
 * depends on session state, which a pooler in transaction mode does not keep per client.
 *
 * The deadlines are kept by the process's one DeadlineSweeper (acted on within its 10 ms interval),
 * not by a timer per statement.
 *
 * A statement the server does not end within CANCEL_GRACE_MS of the cancel (the server or the
 * network is gone) has its connection cut, so that no wait is unbounded. A connection that was
 * sent a cancel and whose statement ended otherwise (it finished just before the cancel arrived)
 * is retired when released: the late cancel would otherwise hit the next statement on it.
 */
export class DeadlineClient extends Client {
  private readonly statementTimeoutMs: number;
  private readonly waitingStatements: WaitingStatements | undefined;
  private transactionDeadline: number | undefined;
  private transactionTimeoutMs = 0;
  private cancelPending = false;

  constructor(config: ClientConfig & DeadlineSettings) {
    super(config);
    this.statementTimeoutMs = config.statementTimeoutMs;
    this.waitingStatements = config.waitingStatements;
  }

  /** From now on until `endTransaction`, statements also end by `timeoutMs` from now. */
  beginTransaction(timeoutMs: number): void {
    this.transactionTimeoutMs = timeoutMs;
    this.transactionDeadline = performance.now() + timeoutMs;
  }

  /** True when the connection must not be reused (a cancel request may still be on its way). */
  endTransaction(): boolean {
    this.transactionDeadline = undefined;
    return this.cancelPending;
  }

  // pg's query has many forms; the ones the service uses (text or config object, values, optional
  // callback) get a deadline. A Submittable (a cursor, a stream) is passed through as it is.
  override query(...args: any[]): any {
    const [config, valuesOrCallback, maybeCallback] = args;
    if (typeof config?.submit === 'function') return (super.query as (...a: unknown[]) => unknown)(...args);
    const callback = typeof valuesOrCallback === 'function' ? valuesOrCallback : maybeCallback;
    const values = typeof valuesOrCallback === 'function' ? undefined : valuesOrCallback;
    const text = typeof config === 'string' ? config : String(config?.text ?? '');
    const outcome = this.runWithDeadline(text, () => super.query(config, values) as unknown as Promise<QueryResult>);
    if (typeof callback !== 'function') return outcome;
    outcome.then(
      (result) => callback(undefined, result),
      (error: Error) => callback(error),
    );
    return undefined;
  }

  private async runWithDeadline(text: string, send: () => Promise<QueryResult>): Promise<QueryResult> {
    const statement = this.deadlineOf(text);
    statementDeadlines.track(statement);
    try {
      return await send();
    } catch (error) {
      if (statement.cancelledWith && (error as { code?: unknown }).code === QUERY_CANCELED) {
        this.cancelPending = false;
        throw statement.cancelledWith;
      }
      throw error;
    } finally {
      statementDeadlines.untrack(statement);
      statement.end();
    }
  }

  /** The statement's own limit, or the transaction's or a lock wait's when that ends sooner. */
  private deadlineOf(text: string): StatementDeadline {
    const now = performance.now();
    let limitMs = this.statementTimeoutMs;
    let limit: LimitKind = 'statement';
    // The statements that end a transaction are left to the transaction's owner (SqlDriver and the
    // Prisma client check the time before COMMIT): refusing one would leave the transaction open.
    if (this.transactionDeadline !== undefined && text !== 'ROLLBACK' && text !== 'COMMIT') {
      const leftMs = this.transactionDeadline - now;
      if (leftMs <= 0) throw this.deadlineError('transaction', 0);
      if (leftMs < limitMs) {
        limitMs = leftMs;
        limit = 'transaction';
      }
    }
    const lockWaitMs = lockWaitLimit();
    if (lockWaitMs !== undefined && lockWaitMs < limitMs) {
      limitMs = lockWaitMs;
      limit = 'lock wait';
    }
    return new StatementDeadline(this, now, limitMs, limit, this.waitingStatements);
  }

  /** Sends the cancel request; the connection is cut if the statement has not ended CANCEL_GRACE_MS later. */
  cancelRunningStatement(): NodeJS.Timeout {
    this.cancelPending = true;
    this.sendCancelRequest();
    return setTimeout(() => this.connection.stream.destroy(), CANCEL_GRACE_MS);
  }

  deadlineError(limit: LimitKind, limitMs: number): Error {
    switch (limit) {
      case 'transaction':
        return timeoutError(TRANSACTION_TIMEOUT, `canceling statement: the transaction ran past TRANSACTION_TIMEOUT_MS (${this.transactionTimeoutMs} ms)`);
      case 'lock wait':
        return timeoutError(LOCK_NOT_AVAILABLE, `canceling statement: it waited ${limitMs} ms, the limit set for it, most likely for a row another transaction holds`);
      case 'statement':
        return timeoutError(QUERY_CANCELED, `canceling statement: it ran past DATABASE_STATEMENT_TIMEOUT_MS (${this.statementTimeoutMs} ms)`);
    }
  }

  /**
   * The protocol's CancelRequest, on a connection of its own (pg's own `cancel` has no error
   * handling). As libpq does, the request is written and the socket left for the other side to
   * close once it has passed the cancel on: PgBouncer 1.18 crashes (`disconnect_client(): bad
   * client state: 0`, pgbouncer/pgbouncer#801) when a cancelling client closes first.
   */
  private sendCancelRequest(): void {
    const { processID, secretKey } = this as unknown as { processID: number | null; secretKey: number | null };
    if (processID === null || secretKey === null) return;
    const socket = this.host.startsWith('/') ? connectSocket(`${this.host}/.s.PGSQL.${this.port}`) : connectSocket(this.port, this.host);
    socket.setTimeout(CANCEL_GRACE_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('connect', () => {
      const request = Buffer.alloc(16);
      request.writeInt32BE(16, 0);
      request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      request.writeInt32BE(processID, 8);
      request.writeInt32BE(secretKey, 12);
      socket.write(request);
    });
  }
}

type LimitKind = 'statement' | 'transaction' | 'lock wait';

/**
 * The deadline of one statement, kept by the process's DeadlineSweeper. When the pool counts
 * waiting statements and the limit is longer than its `slowAfterMs`, there are two stages: at
 * `slowAfterMs` the statement takes a place among the waiting ones (or is cancelled at once when
 * all are taken), then at its limit it is cancelled.
 */
class StatementDeadline implements Due {
  dueAt: number;
  /** The error the statement fails with, once it was cancelled for running too long. */
  cancelledWith: Error | undefined;
  private countedAsWaiting = false;
  private cut: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: DeadlineClient,
    private readonly startedAt: number,
    private readonly limitMs: number,
    private readonly limit: LimitKind,
    private readonly waiting: WaitingStatements | undefined,
  ) {
    this.dueAt = startedAt + (waiting && waiting.slowAfterMs < limitMs ? waiting.slowAfterMs : limitMs);
  }

  onDue(now: number): void {
    const { waiting } = this;
    if (waiting && !this.countedAsWaiting && this.dueAt < this.startedAt + this.limitMs) {
      this.countedAsWaiting = waiting.enter();
      if (!this.countedAsWaiting) {
        this.cancel(timeoutError(QUERY_CANCELED, `canceling statement: it ran past ${waiting.slowAfterMs} ms while ${waiting.limit} other statements of this pool were waiting already`));
        return;
      }
      this.dueAt = this.startedAt + this.limitMs;
      if (this.dueAt > now) return;
    }
    this.cancel(this.client.deadlineError(this.limit, this.limitMs));
  }

  end(): void {
    clearTimeout(this.cut);
    if (this.countedAsWaiting) this.waiting?.leave();
  }

  private cancel(reason: Error): void {
    this.cancelledWith = reason;
    this.dueAt = Infinity;
    this.cut = this.client.cancelRunningStatement();
  }
}
