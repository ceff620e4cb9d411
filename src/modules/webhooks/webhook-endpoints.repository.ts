import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AuditContext } from '../../common/audit/audit-event';
import { AuditStatements, REDACTED, sqlChanges } from '../../common/audit/audit-event';
import { columns, type RowOf } from '../../database/columns';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type AuditEvent, type WebhookDelivery, type WebhookEndpoint } from '../../generated/prisma/client';
import { endpointAuditEventInsert } from './endpoint-audit-event';
import { WebhooksAudit } from './webhooks.audit';

export const WEBHOOK_ENDPOINT = columns<WebhookEndpoint>()('id', 'url', 'eventTypes', 'description', 'seq', 'createdAt');
export type WebhookEndpointRow = RowOf<typeof WEBHOOK_ENDPOINT>;

const DELIVERY = columns<WebhookDelivery>('d')('id', 'eventId', 'status', 'attempts', 'lastAttemptAt', 'lastResponseStatus', 'lastError', 'nextAttemptAt', 'deliveredAt', 'seq', 'createdAt');
/** A delivery with its event's action, read from webhook_deliveries `d` joined to audit_events `e`. */
export type WebhookDeliveryRow = RowOf<typeof DELIVERY> & Pick<AuditEvent, 'action'>;
const DELIVERY_WITH_ACTION = Prisma.sql`${DELIVERY.sql}, e.action`;

/** A new endpoint as the service made it: the secret is generated there. */
export interface NewWebhookEndpoint {
  url: string;
  eventTypes: string[];
  description: string | null;
  secret: string;
}

/** Webhook endpoints and, as their endpoint's, the deliveries an organization reads and requeues. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * Unless the organization has `limit` endpoints already (then no row): its row is locked first
   * (FOR NO KEY UPDATE, so creators of one organization's endpoints take turns on every instance
   * while its other writes go on), then one statement counts the endpoints, as committed by then,
   * and writes the endpoint, its audit event and the event's deliveries to matching endpoints,
   * this one included.
   */
  insertUnderLimit(organizationId: string, endpoint: NewWebhookEndpoint, limit: number, context: AuditContext): Promise<WebhookEndpointRow | undefined> {
    return this.txHost.withSqlTransaction(async () => {
      await this.txHost.sql.query(Prisma.sql`SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid ${RowLock.forNoKeyUpdate}`);
      const [row] = await this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
        WITH endpoint AS (
          INSERT INTO webhook_endpoints (id, organization_id, url, event_types, description, secret, created_at)
          SELECT ${randomUUID()}::uuid, ${organizationId}::uuid, ${endpoint.url}, ${endpoint.eventTypes}::text[], ${endpoint.description}, ${endpoint.secret}, ${context.at}
          WHERE (SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid) < ${limit}
          RETURNING id, organization_id, url, event_types, description, seq, created_at
        ), ${endpointAuditEventInsert(this.audit, 'created', 'endpoint', context.at, context.actor)}
        SELECT ${WEBHOOK_ENDPOINT.sql} FROM endpoint`);
      return row;
    });
  }

  async findById(organizationId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    const [row] = await this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
      SELECT ${WEBHOOK_ENDPOINT.sql} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    return row;
  }

  /** Up to `limit` endpoints after `after` in creation order: keyset on (seq, id). */
  list(organizationId: string, after: { seq: string; id: string } | undefined, limit: number): Promise<WebhookEndpointRow[]> {
    const from = after ? Prisma.sql`AND (seq, id) > (${after.seq}::bigint, ${after.id}::uuid)` : Prisma.empty;
    return this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
      SELECT ${WEBHOOK_ENDPOINT.sql} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid ${from}
      ORDER BY seq, id LIMIT ${limit}`);
  }

  /**
   * One statement: removes the endpoint with its deliveries and writes its audit event, delivered
   * to the organization's other endpoints that subscribe to it. False when there was none.
   */
  async delete(organizationId: string, id: string, context: AuditContext): Promise<boolean> {
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      WITH removed AS (
        DELETE FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
        RETURNING id, organization_id, url, event_types, description
      ), ${endpointAuditEventInsert(this.audit, 'deleted', 'removed', context.at, context.actor)}
      SELECT id FROM removed`);
    return rows.length === 1;
  }

  /**
   * One statement: `secret` signs from now on, the current one beside it until `previousExpiresAt`
   * (a secret rotated out before is dropped), with the audit event, in which both secrets show only
   * as redacted. False when there was no such endpoint.
   */
  async rotateSecret(organizationId: string, id: string, secret: string, previousExpiresAt: Date, context: AuditContext): Promise<boolean> {
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      WITH rotated AS (
        UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ${previousExpiresAt}, secret = ${secret}
        WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid RETURNING id, organization_id
      ), ${this.audit.insertFrom(context, Prisma.sql`rotated`, {
        organizationId: Prisma.sql`rotated.organization_id`,
        action: WebhooksAudit.EndpointSecretRotated,
        resourceId: Prisma.sql`rotated.id::text`,
        changes: { secret: { old: REDACTED, new: REDACTED } },
      })}
      SELECT id FROM rotated`);
    return rows.length === 1;
  }

  /** Up to `limit` of the endpoint's deliveries before `beforeSeq`, newest first: keyset on seq. */
  listDeliveries(organizationId: string, endpointId: string, beforeSeq: string | undefined, limit: number): Promise<WebhookDeliveryRow[]> {
    const before = beforeSeq !== undefined ? Prisma.sql`AND d.seq < ${beforeSeq}::bigint` : Prisma.empty;
    return this.txHost.sql.query<WebhookDeliveryRow>(Prisma.sql`
      SELECT ${DELIVERY_WITH_ACTION} FROM webhook_deliveries d JOIN audit_events e ON e.organization_id = d.organization_id AND e.id = d.event_id
      WHERE d.endpoint_id = ${endpointId}::uuid AND d.organization_id = ${organizationId}::uuid ${before}
      ORDER BY d.seq DESC LIMIT ${limit}`);
  }

  /**
   * Queues a delivery again, due at `context.at`, with a fresh retry schedule and the same
   * webhook-id, and writes webhook_delivery.redelivered with the status and attempts it had (the
   * UPDATE's join to the row as the statement found it). Undefined when there was no such delivery.
   */
  async requeueDelivery(organizationId: string, deliveryId: string, context: AuditContext): Promise<WebhookDeliveryRow | undefined> {
    const [row] = await this.txHost.sql.query<WebhookDeliveryRow>(Prisma.sql`
      WITH queued AS (
        UPDATE webhook_deliveries d SET status = 'pending', attempts = 0, next_attempt_at = ${context.at}, lease_id = NULL, delivered_at = NULL
        FROM webhook_deliveries before
        WHERE d.organization_id = ${organizationId}::uuid AND d.id = ${deliveryId}::uuid AND before.id = d.id
        RETURNING d.*, before.status AS status_before, before.attempts AS attempts_before
      ), ${this.audit.insertFrom(context, Prisma.sql`queued`, {
        organizationId: Prisma.sql`queued.organization_id`,
        action: WebhooksAudit.DeliveryRedelivered,
        resourceId: Prisma.sql`queued.id::text`,
        changes: sqlChanges({
          status: { old: Prisma.sql`queued.status_before`, new: Prisma.sql`queued.status` },
          attempts: { old: Prisma.sql`queued.attempts_before`, new: Prisma.sql`queued.attempts` },
        }),
      })}
      SELECT ${DELIVERY_WITH_ACTION} FROM queued d JOIN audit_events e ON e.organization_id = d.organization_id AND e.id = d.event_id`);
    return row;
  }
}
