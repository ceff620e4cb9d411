import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Clock } from '../../common/clock';
import { Metrics } from '../../common/metrics/metrics';
import { DeliveryOutboxRepository, type OutboxBacklog } from './delivery-outbox.repository';

export type DeliveryOutcomeLabel = 'delivered' | 'retried' | 'failed';

// A backlog beyond this is reported as this: the count stays a bounded index scan.
const BACKLOG_COUNT_LIMIT = 100_000;

/**
 * The webhook metrics on this instance's registry: attempts by outcome, and the outbox's due
 * deliveries and the age of the oldest, read by one query when scraped (shared by both gauges).
 */
@Injectable()
export class WebhookMetrics {
  private readonly attempts: Counter<'outcome'>;
  private scrape?: { at: number; backlog: Promise<OutboxBacklog> };

  constructor(metrics: Metrics, outbox: DeliveryOutboxRepository, clock: Clock) {
    this.attempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered (2xx), retried (failed, another attempt is scheduled), failed (the retry schedule is used up).',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    const backlog = () => {
      const now = clock.now();
      if (!this.scrape || now.getTime() - this.scrape.at > 1000) {
        this.scrape = { at: now.getTime(), backlog: outbox.backlog(now, BACKLOG_COUNT_LIMIT) };
      }
      return { now, backlog: this.scrape.backlog };
    };
    new Gauge({
      name: 'webhook_outbox_due_deliveries',
      help: `Webhook deliveries due and not yet attempted, on all instances (counted up to ${BACKLOG_COUNT_LIMIT}).`,
      registers: [metrics.registry],
      async collect() {
        this.set((await backlog().backlog).due);
      },
    });
    new Gauge({
      name: 'webhook_outbox_oldest_due_age_seconds',
      help: 'How long the longest-waiting due webhook delivery has been due (0 when none is).',
      registers: [metrics.registry],
      async collect() {
        const { now, backlog: pending } = backlog();
        const { oldestDueAt } = await pending;
        this.set(oldestDueAt ? Math.max(0, (now.getTime() - oldestDueAt.getTime()) / 1000) : 0);
      },
    });
  }

  attempted(outcome: DeliveryOutcomeLabel): void {
    this.attempts.inc({ outcome });
  }
}
