import type { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';

/** What a subscriber to a NOTIFY channel is told. */
export interface NotificationHandlers {
  /** A notification on the channel, with its payload. */
  onNotify(payload: string): void;
  /**
   * Whether notifications are being received: true each time LISTEN has succeeded (first time
   * and after every reconnect), false whenever they may be missed (connection lost, closed).
   */
  onListening(listening: boolean): void;
}

export interface NotificationSubscription {
  /** Stops listening for good; safe to call more than once. */
  close(): Promise<void>;
}

/** The listener's backend can be told apart in pg_stat_activity by this name. */
export const LISTENER_APPLICATION_NAME = 'wsa-listener';

const FIRST_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
// Notices a silently dropped connection, which would otherwise look like a quiet channel.
const KEEPALIVE_DELAY_MS = 10_000;

/** The subscriptions of one open database, so that closing the database ends them first. */
export class Subscriptions {
  private readonly open = new Set<NotificationSubscription>();

  track(subscription: NotificationSubscription): NotificationSubscription {
    this.open.add(subscription);
    return {
      close: async () => {
        this.open.delete(subscription);
        await subscription.close();
      },
    };
  }

  async closeAll(): Promise<void> {
    const all = [...this.open];
    this.open.clear();
    await Promise.all(all.map((subscription) => subscription.close()));
  }
}

/**
 * Listens on a dedicated connection of its own (LISTEN cannot share a pooled one), and
 * reconnects with a bounded backoff whenever that connection is lost. Resolves once the first
 * attempt has succeeded or failed; a lost connection neither keeps the process alive nor throws.
 */
export async function listenOnPostgres(url: string, channel: string, handlers: NotificationHandlers): Promise<NotificationSubscription> {
  const listener = new PostgresListener(url, channel, handlers);
  await listener.connect();
  return listener;
}

class PostgresListener implements NotificationSubscription {
  private client?: Client;
  private retryTimer?: NodeJS.Timeout;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
  ) {}

  async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.url,
      application_name: LISTENER_APPLICATION_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (this.client === client && message.channel === this.channel) this.handlers.onNotify(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client) return;
    // Only once listening: while connecting (bounded by the timeout) the process must not exit
    // under a start-up that waits for it. Client.unref() is what pg-pool's allowExitOnIdle uses;
    // @types/pg does not declare it.
    (client as Client & { unref(): void }).unref();
    this.failures = 0;
    this.handlers.onListening(true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.handlers.onListening(false);
    await client?.end().catch(() => undefined);
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.handlers.onListening(false);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    const delay = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** this.failures);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}

/** PGlite delivers a NOTIFY to its own listeners in-process, as the notifying statement completes. */
export async function listenOnPGlite(pglite: PGlite, channel: string, handlers: NotificationHandlers): Promise<NotificationSubscription> {
  const unlisten = await pglite.listen(channel, (payload) => handlers.onNotify(payload));
  handlers.onListening(true);
  let closed = false;
  return {
    async close() {
      if (closed) return;
      closed = true;
      handlers.onListening(false);
      // Fails once the database itself is closed, which ends the listening just the same.
      await unlisten().catch(() => undefined);
    },
  };
}
