import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../../common/audit/audit-event';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { DatabaseNotifications } from '../../database/database-notifications';
import type { NotificationSubscription } from '../../database/notifications';
import { toAuditEventDto } from '../audit-events/audit-event.mapper';
import { DeliveryOutboxRepository, type AttemptOutcome, type ClaimedDelivery, type EndpointBackoff } from './delivery-outbox.repository';
import { jitterFactor, retryDelayMs } from './retry-policy';
import { WebhookMetrics } from './webhook-metrics';
import { webhookSignature } from './webhook-secret';
import { WebhookSender, type AttemptResult } from './webhook-sender';

// Beyond the connect and response timeouts, for the claim's and the outcome's statements.
const LEASE_MARGIN_MS = 10_000;

/**
 * Delivers the webhook outbox, on every instance (docs/webhooks.md). Woken by NOTIFY when an event
 * is queued (on every instance, the writing one included), by a poll as a fallback and for retries
 * and backoffs that end, and by a finished attempt that may have left more behind (the last claim
 * was full, or its organization had used its share). Each claim leases due deliveries in one
 * statement (FOR UPDATE SKIP LOCKED, so instances take disjoint rows), at most
 * WEBHOOK_ORGANIZATION_CONCURRENCY under way per organization here; the POST runs outside any
 * transaction; the outcome is recorded only under the attempt's own lease.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<string, AbortController>();
  /** Deliveries under way here by organization, none at 0. */
  private readonly inFlightByOrganization = new Map<string, number>();
  /** Organizations that had used their share when last claimed for: a finished attempt of theirs may free a due delivery. */
  private readonly saturated = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  private subscription?: NotificationSubscription;
  private pollTimer?: NodeJS.Timeout;
  private claiming?: Promise<void>;
  private wakeAgain = false;
  private lastClaimFull = false;
  private stopping = false;
  private lastFailureLog = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly outbox: DeliveryOutboxRepository,
    private readonly notifications: DatabaseNotifications,
    private readonly metrics: WebhookMetrics,
  ) {
    this.sender = new WebhookSender({
      allowInsecure: config.WEBHOOK_ALLOW_INSECURE_TARGETS === 'true',
      connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: config.WEBHOOK_RESPONSE_TIMEOUT_MS,
    });
  }

  get enabled(): boolean {
    return this.config.WEBHOOK_WORKER_ENABLED === 'true';
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    // With DATABASE_NOTIFICATIONS=off (a database without LISTEN) the poll alone finds new deliveries.
    if (this.config.DATABASE_NOTIFICATIONS === 'on') {
      this.subscription = await this.notifications.listen(WEBHOOK_DELIVERIES_CHANNEL, {
        onNotify: () => this.wake(),
        // (Re)connected: what was queued meanwhile is due now.
        onListening: (listening) => listening && this.wake(),
      });
    }
    this.pollTimer = setInterval(() => this.wake(), this.config.WEBHOOK_POLL_INTERVAL_MS);
    this.pollTimer.unref();
    this.wake();
  }

  /**
   * Stops claiming, cuts the attempts under way short and releases their leases, so that another
   * instance delivers them at once rather than after the lease.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    await this.subscription?.close();
    // A claim under way still starts what it leased, so that the aborts below give it back.
    await this.claiming;
    for (const controller of this.inFlight.values()) controller.abort();
    await Promise.all([...this.attempts]);
    this.sender.close();
  }

  /** Claims due deliveries now (or right after the claim under way). */
  wake(): void {
    if (this.stopping || !this.enabled) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.claimWhileDue().finally(() => {
      this.claiming = undefined;
    });
  }

  private async claimWhileDue(): Promise<void> {
    do {
      this.wakeAgain = false;
      const free = this.config.WEBHOOK_WORKER_CONCURRENCY - this.inFlight.size;
      if (free <= 0) {
        this.lastClaimFull = true;
        return;
      }
      let claimed: ClaimedDelivery[];
      try {
        const now = this.clock.now();
        const leaseMs = this.config.WEBHOOK_CONNECT_TIMEOUT_MS + this.config.WEBHOOK_RESPONSE_TIMEOUT_MS + LEASE_MARGIN_MS;
        claimed = await this.outbox.claim({
          now,
          leaseUntil: new Date(now.getTime() + leaseMs),
          limit: free,
          organizationShare: this.config.WEBHOOK_ORGANIZATION_CONCURRENCY,
          inFlight: this.inFlightByOrganization,
        });
      } catch (error) {
        this.logFailure('claiming due deliveries', error);
        return;
      }
      this.lastClaimFull = claimed.length === free;
      for (const delivery of claimed) this.start(delivery);
      this.saturated.clear();
      for (const [organizationId, count] of this.inFlightByOrganization) {
        if (count >= this.config.WEBHOOK_ORGANIZATION_CONCURRENCY) this.saturated.add(organizationId);
      }
      if (this.lastClaimFull) this.wakeAgain = true;
    } while (this.wakeAgain && !this.stopping);
  }

  private start(delivery: ClaimedDelivery): void {
    const controller = new AbortController();
    const organizationId = delivery.organizationId;
    this.inFlight.set(delivery.id, controller);
    this.inFlightByOrganization.set(organizationId, (this.inFlightByOrganization.get(organizationId) ?? 0) + 1);
    const attempt = this.attempt(delivery, controller.signal).finally(() => {
      this.inFlight.delete(delivery.id);
      const left = this.inFlightByOrganization.get(organizationId)! - 1;
      if (left === 0) this.inFlightByOrganization.delete(organizationId);
      else this.inFlightByOrganization.set(organizationId, left);
      this.attempts.delete(attempt);
      if (this.lastClaimFull || this.saturated.delete(organizationId)) this.wake();
    });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const sentAt = this.clock.now();
    const body = JSON.stringify({ type: delivery.action, timestamp: delivery.occurredAt.toISOString(), data: toAuditEventDto(delivery) });
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    const secrets = [delivery.secret];
    if (delivery.previousSecret !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt > sentAt) {
      secrets.push(delivery.previousSecret);
    }
    const result = await this.sender.send(
      delivery.url,
      {
        'content-type': 'application/json',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secrets, delivery.id, timestamp, body),
      },
      body,
      signal,
    );
    const outcome = signal.aborted ? ({ kind: 'released' } as const) : this.outcomeOf(delivery, result);
    try {
      const recorded = await this.outbox.record(delivery, outcome, this.clock.now(), this.endpointBackoff());
      if (recorded && outcome.kind !== 'released') this.metrics.attempted(outcome.kind === 'retry' ? 'retried' : outcome.kind);
    } catch (error) {
      // The lease expires and the delivery is attempted again.
      this.logFailure('recording a delivery attempt', error);
    }
  }

  private outcomeOf(delivery: ClaimedDelivery, result: AttemptResult): AttemptOutcome {
    if (result.status !== null && result.status >= 200 && result.status < 300) return { kind: 'delivered', status: result.status };
    const wait = result.final ? undefined : retryDelayMs(delivery.attempts, this.config.webhookRetryDelaysMs);
    if (wait === undefined) return { kind: 'failed', status: result.status, error: result.error };
    return { kind: 'retry', status: result.status, error: result.error, nextAttemptAt: new Date(this.clock.now().getTime() + wait) };
  }

  private endpointBackoff(): EndpointBackoff {
    return { waitsMs: this.config.webhookEndpointBackoffMs, jitter: jitterFactor() };
  }

  /** At most one line every 10 s while the database is away. */
  private logFailure(what: string, error: unknown): void {
    const now = Date.now();
    if (now - this.lastFailureLog < 10_000) return;
    this.lastFailureLog = now;
    this.logger.warn(`Webhook worker: ${what} failed: ${(error as Error).message}`);
  }
}
