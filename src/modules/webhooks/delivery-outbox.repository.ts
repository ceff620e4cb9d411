import { Injectable } from '@nestjs/common';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { auditEventColumns, type AuditEventRow } from '../audit-events/audit-event.mapper';

/** The claimed delivery's event, read from audit_events (aliased `e`) as the audit list reads it. */
const EVENT_COLUMNS = auditEventColumns('e');

/**
 * The endpoints with pending deliveries, as a recursive CTE `pending_endpoint(id)`: one probe of
 * webhook_deliveries_endpoint_due_idx per endpoint (a loose index scan), so its cost follows the
 * number of such endpoints, never the number of deliveries waiting.
 */
const PENDING_ENDPOINTS = Prisma.raw(`pending_endpoint(id) AS (
  (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
  UNION ALL
  SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.id ORDER BY d.endpoint_id LIMIT 1)
  FROM pending_endpoint p WHERE p.id IS NOT NULL
)`);

/** A leased delivery with what its attempt needs: the target, the secrets, the event. */
export interface ClaimedDelivery extends AuditEventRow {
  id: string;
  leaseId: string;
  organizationId: string;
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

/** What one claim may take: the instance's free slots, shared out fairly between organizations. */
export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  /** Deliveries to lease at most (the instance's free slots). */
  limit: number;
  /** Deliveries one organization may have under way on this instance. */
  organizationShare: number;
  /** Deliveries under way on this instance, by organization. */
  inFlight: ReadonlyMap<string, number>;
}

/** How a failed attempt backs off its endpoint: the waits after 1, 2, … failures in a row (the last repeats), each scaled by `jitter`. */
export interface EndpointBackoff {
  waitsMs: readonly number[];
  jitter: number;
}

/**
 * The statements of the delivery worker on the webhook_deliveries outbox, each its own short
 * transaction (docs/webhooks.md, "Delivery": fairness and backoff).
 */
@Injectable()
export class DeliveryOutboxRepository {
  constructor(private readonly txHost: SqlHost) {}

  /**
   * Leases due deliveries until `leaseUntil` and counts the attempt, in one statement that commits
   * at once; returns them with their endpoint and event.
   *
   * Fair across organizations: the endpoints with pending deliveries are walked (PENDING_ENDPOINTS);
   * an endpoint backed off is passed over with all its
   * deliveries; every organization gets at most its share (less what it has under way here), and
   * the slots go round the organizations, oldest due first, one delivery each per turn. A failing
   * endpoint gets one delivery, a probe, and is leased with it so that no other claim probes it.
   */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    const { now, leaseUntil, limit, organizationShare } = request;
    const busyOrganizations = [...request.inFlight.keys()];
    const busyCounts = busyOrganizations.map((id) => request.inFlight.get(id)!);
    return this.txHost.sql.query<ClaimedDelivery>(Prisma.sql`
      WITH RECURSIVE ${PENDING_ENDPOINTS}, busy(organization_id, in_flight) AS (
        SELECT * FROM unnest(${busyOrganizations}::uuid[], ${busyCounts}::int[])
      ), ready AS (
        SELECT w.id, w.organization_id, w.consecutive_failures > 0 AS failing, ${organizationShare}::int - COALESCE(b.in_flight, 0) AS share
        FROM pending_endpoint p JOIN webhook_endpoints w ON w.id = p.id LEFT JOIN busy b ON b.organization_id = w.organization_id
        WHERE (w.backoff_until IS NULL OR w.backoff_until <= ${now}) AND COALESCE(b.in_flight, 0) < ${organizationShare}::int
      ), candidate AS (
        SELECT r.organization_id, r.share, r.failing, r.id AS endpoint_id, due.id, due.next_attempt_at
        FROM ready r CROSS JOIN LATERAL (
          SELECT id, next_attempt_at FROM webhook_deliveries
          WHERE endpoint_id = r.id AND status = 'pending' AND next_attempt_at <= ${now}
          ORDER BY next_attempt_at LIMIT CASE WHEN r.failing THEN 1 ELSE r.share END
          ${RowLock.forUpdateSkipLocked()}
        ) due
      ), chosen AS (
        SELECT id, endpoint_id, failing FROM (
          SELECT id, endpoint_id, failing, share, next_attempt_at,
            row_number() OVER (PARTITION BY organization_id ORDER BY next_attempt_at, id) AS turn
          FROM candidate
        ) ranked
        WHERE turn <= share ORDER BY turn, next_attempt_at LIMIT ${limit}::int
      ), probing AS (
        UPDATE webhook_endpoints SET backoff_until = ${leaseUntil} WHERE id IN (SELECT endpoint_id FROM chosen WHERE failing)
      )
      UPDATE webhook_deliveries d
      SET next_attempt_at = ${leaseUntil}, lease_id = gen_random_uuid(), attempts = d.attempts + 1, last_attempt_at = ${now}
      FROM chosen, webhook_endpoints w, audit_events e
      WHERE d.id = chosen.id AND w.id = d.endpoint_id AND e.organization_id = d.organization_id AND e.id = d.event_id
      RETURNING d.id, d.lease_id AS "leaseId", d.organization_id AS "organizationId", d.attempts, w.url, w.secret, w.previous_secret AS "previousSecret",
        w.previous_secret_expires_at AS "previousSecretExpiresAt", ${EVENT_COLUMNS}`);
  }

  /**
   * Records an attempt's outcome, if its lease still holds (not expired and taken by another
   * instance, not requeued by redeliver, the endpoint not deleted), and the endpoint's health with
   * it: a success clears its failures and backoff, a failure counts one more and backs the whole
   * endpoint off. `released`: the attempt was cut short by a shutdown and does not count; the
   * delivery, and the endpoint if it was being probed, are due again at once.
   */
  async record(delivery: Pick<ClaimedDelivery, 'id' | 'leaseId'>, outcome: AttemptOutcome, now: Date, backoff: EndpointBackoff): Promise<boolean> {
    const [set, health] = (() => {
      switch (outcome.kind) {
        case 'delivered':
          return [
            Prisma.sql`status = 'delivered', delivered_at = ${now}, next_attempt_at = NULL, last_response_status = ${outcome.status}, last_error = NULL`,
            Prisma.sql`SET consecutive_failures = 0, backoff_until = NULL WHERE (consecutive_failures > 0 OR backoff_until IS NOT NULL) AND`,
          ];
        case 'retry':
        case 'failed': {
          const next =
            outcome.kind === 'retry'
              ? Prisma.sql`next_attempt_at = ${outcome.nextAttemptAt}`
              : Prisma.sql`status = 'failed', next_attempt_at = NULL`;
          return [
            Prisma.sql`${next}, last_response_status = ${outcome.status}, last_error = ${outcome.error}`,
            Prisma.sql`SET consecutive_failures = consecutive_failures + 1,
              backoff_until = ${now}::timestamptz + (${backoff.waitsMs}::int[])[LEAST(consecutive_failures + 1, ${backoff.waitsMs.length}::int)] * ${backoff.jitter}::float8 * interval '1 millisecond'
              WHERE`,
          ];
        }
        case 'released':
          return [
            Prisma.sql`next_attempt_at = ${now}, attempts = attempts - 1`,
            Prisma.sql`SET backoff_until = ${now} WHERE consecutive_failures > 0 AND backoff_until > ${now} AND`,
          ];
      }
    })();
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      WITH recorded AS (
        UPDATE webhook_deliveries SET ${set}, lease_id = NULL
        WHERE id = ${delivery.id}::uuid AND lease_id = ${delivery.leaseId}::uuid RETURNING id, endpoint_id
      ), endpoint_health AS (
        UPDATE webhook_endpoints ${health} id IN (SELECT endpoint_id FROM recorded)
      )
      SELECT id FROM recorded`);
    return rows.length === 1;
  }

  /**
   * Due deliveries (counted up to `countLimit`, so a huge backlog costs a bounded scan) and the
   * oldest one's due time: the earliest of each pending endpoint's.
   */
  async backlog(now: Date, countLimit: number): Promise<OutboxBacklog> {
    const [row] = await this.txHost.sql.query<{ due: bigint; oldestDueAt: Date | null }>(Prisma.sql`
      WITH RECURSIVE ${PENDING_ENDPOINTS}
      SELECT (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now} LIMIT ${countLimit}) bounded) AS due,
        (SELECT min(oldest.due_at) FROM pending_endpoint p CROSS JOIN LATERAL (
          SELECT next_attempt_at AS due_at FROM webhook_deliveries WHERE endpoint_id = p.id AND status = 'pending' ORDER BY next_attempt_at LIMIT 1
        ) oldest WHERE oldest.due_at <= ${now}) AS "oldestDueAt"`);
    return { due: Number(row.due), oldestDueAt: row.oldestDueAt };
  }
}
