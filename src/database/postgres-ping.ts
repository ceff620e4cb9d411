import type { ClientConfig } from 'pg';
import { DeadlineClient, type DeadlineSettings } from './deadline-client';

/**
 * Readiness's `SELECT 1` on a PostgreSQL connection of its own, opened on first use and again
 * after a failure: it answers whether the database answers, however busy the pool is (every
 * connection waiting on a lock, requests queued for one). The statement has the same deadline as
 * every other, so a ping never waits without bound either.
 */
export class PostgresPing {
  private client: Promise<DeadlineClient> | undefined;
  private closed = false;

  constructor(private readonly config: ClientConfig & DeadlineSettings) {}

  async ping(): Promise<void> {
    // As a closed pool refuses its queries, with the message the outage checks know.
    if (this.closed) throw new Error('Cannot use a pool after calling end on the pool');
    const opening = (this.client ??= this.open());
    try {
      await (await opening).query('SELECT 1');
    } catch (error) {
      this.discard(opening);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.client;
    this.client = undefined;
    if (opening) await opening.then((client) => client.end()).catch(() => undefined);
  }

  private open(): Promise<DeadlineClient> {
    const client = new DeadlineClient(this.config);
    const opening = client.connect().then(() => client);
    client.on('error', () => this.discard(opening));
    return opening;
  }

  private discard(opening: Promise<DeadlineClient> | undefined): void {
    if (opening === undefined || this.client !== opening) return;
    this.client = undefined;
    opening.then((client) => client.end()).catch(() => undefined);
  }
}
