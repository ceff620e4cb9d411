import type { ClientConfig, QueryResult } from 'pg';
import { DeadlineClient, type DeadlineSettings } from './deadline-client';

/** What BEGIN answers; the driver adapter reads only its row count. */
const BEGUN: QueryResult = { command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] };

/**
 * A pooled connection in pg's pipeline mode: a statement is written as soon as it is sent, not
 * after the answer to the one before, so statements sent back to back share one round trip
 * (SqlDriver sends a transaction's last statements with its COMMIT).
 *
 * BEGIN is answered at once and its real answer is waited for with the transaction's next
 * statement, which is written right behind it: a transaction saves the round trip of its BEGIN.
 * That next statement fails when the BEGIN did. BEGIN itself fails only when the connection does
 * (or the pooler gives up on it), and then so does the statement behind it on the same connection,
 * so nothing runs outside the transaction it was meant for.
 */
export class PipelinedClient extends DeadlineClient {
  private unansweredBegin: Promise<QueryResult> | undefined;

  constructor(config: ClientConfig & DeadlineSettings) {
    super({ ...config, pipeline: true } as ClientConfig & DeadlineSettings);
  }

  // The driver adapter sends BEGIN and a transaction's statements in pg's promise form; the other
  // forms (a callback, a Submittable) come from pool.query and others, never right after a BEGIN.
  override query(...args: any[]): any {
    const [config, valuesOrCallback, maybeCallback] = args;
    const sent = super.query(...args);
    if (typeof valuesOrCallback === 'function' || typeof maybeCallback === 'function' || typeof config?.submit === 'function') return sent;
    const begin = this.unansweredBegin;
    this.unansweredBegin = undefined;
    if ((typeof config === 'string' ? config : config?.text) === 'BEGIN') {
      // Handled here: a BEGIN that failed rejects the statement sent after it instead.
      (sent as Promise<QueryResult>).catch(() => undefined);
      this.unansweredBegin = sent as Promise<QueryResult>;
      return Promise.resolve(BEGUN);
    }
    if (begin === undefined) return sent;
    return Promise.all([begin, sent]).then(([, result]) => result);
  }
}
