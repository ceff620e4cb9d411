import { Injectable } from '@nestjs/common';
import { claimDue } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { auditEventColumns, type AuditEventRow } from '../audit-events/audit-event.mapper';

/** The claimed delivery's event, read from audit_events (aliased `e`) as the audit list reads it. */
const EVENT_COLUMNS = auditEventColumns('e');

/** A leased delivery with what its attempt needs: the target, the secrets, the event. */
export interface ClaimedDelivery extends AuditEventRow {
  id: string;
  leaseId: string;
  /** Attempts made, this one included. */
  attempts: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string | null; nextAttemptAt: Date }
  | { kind: 'failed'; status: number | null; error: string | null }
  | { kind: 'released' };

export interface OutboxBacklog {
  due: number;
  oldestDueAt: Date | null;
}

/** The statements of the delivery worker on the webhook_deliveries outbox, each its own short transaction. */
@Injectable()
export class DeliveryOutbox {
  constructor(private readonly txHost: SqlHost) {}

  /**
   * Leases up to `limit` due deliveries until `leaseUntil` and counts the attempt, in one statement
   * that commits at once; returns them with their endpoint and event.
   */
  claim(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const due = Prisma.sql`status = 'pending' AND next_attempt_at <= ${now}`;
    return this.txHost.sql.query<ClaimedDelivery>(Prisma.sql`
      UPDATE webhook_deliveries d
      SET next_attempt_at = ${leaseUntil}, lease_id = gen_random_uuid(), attempts = d.attempts + 1, last_attempt_at = ${now}
      FROM (${claimDue('webhook_deliveries', due, 'next_attempt_at', limit)}) due, webhook_endpoints w, audit_events e
      WHERE d.id = due.id AND w.id = d.endpoint_id AND e.organization_id = d.organization_id AND e.id = d.event_id
      RETURNING d.id, d.lease_id AS "leaseId", d.attempts, w.url, w.secret, w.previous_secret AS "previousSecret",
        w.previous_secret_expires_at AS "previousSecretExpiresAt", ${EVENT_COLUMNS}`);
  }

  /**
   * Records an attempt's outcome, if its lease still holds (not expired and taken by another
   * instance, not requeued by redeliver, the endpoint not deleted). `released`: the attempt was
   * cut short by a shutdown and does not count; the delivery is due again at once.
   */
  async record(delivery: Pick<ClaimedDelivery, 'id' | 'leaseId'>, outcome: AttemptOutcome, now: Date): Promise<boolean> {
    const set = (() => {
      switch (outcome.kind) {
        case 'delivered':
          return Prisma.sql`status = 'delivered', delivered_at = ${now}, next_attempt_at = NULL, last_response_status = ${outcome.status}, last_error = NULL`;
        case 'retry':
          return Prisma.sql`next_attempt_at = ${outcome.nextAttemptAt}, last_response_status = ${outcome.status}, last_error = ${outcome.error}`;
        case 'failed':
          return Prisma.sql`status = 'failed', next_attempt_at = NULL, last_response_status = ${outcome.status}, last_error = ${outcome.error}`;
        case 'released':
          return Prisma.sql`next_attempt_at = ${now}, attempts = attempts - 1`;
      }
    })();
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      UPDATE webhook_deliveries SET ${set}, lease_id = NULL
      WHERE id = ${delivery.id}::uuid AND lease_id = ${delivery.leaseId}::uuid RETURNING id`);
    return rows.length === 1;
  }

  /** Due deliveries (counted up to `countLimit`, so a huge backlog costs a bounded scan) and the oldest one's due time, from the partial index. */
  async backlog(now: Date, countLimit: number): Promise<OutboxBacklog> {
    const [row] = await this.txHost.sql.query<{ due: bigint; oldestDueAt: Date | null }>(Prisma.sql`
      SELECT (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now} LIMIT ${countLimit}) bounded) AS due,
        (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now}) AS "oldestDueAt"`);
    return { due: Number(row.due), oldestDueAt: row.oldestDueAt };
  }
}
