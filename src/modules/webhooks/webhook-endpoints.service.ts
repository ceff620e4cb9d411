import type { AuditActor } from '../../common/audit/audit-actor';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { AppConfig } from '../../config/app-config';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import type { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import type { WebhookPageQueryDto } from './dto/page-query.dto';
import type { WebhookDeliveryDto, WebhookDeliveryPageDto } from './dto/webhook-delivery.dto';
import type { CreatedWebhookEndpointDto, RotatedSecretDto, WebhookEndpointDto, WebhookEndpointPageDto } from './dto/webhook-endpoint.dto';
import { AuditStatements, REDACTED, sqlChanges } from '../../common/audit/audit-event';
import { RowLock } from '../../database/locks';
import { endpointAuditEventInsert } from './endpoint-audit-event';
import { toWebhookDeliveryDto, toWebhookEndpointDto, type WebhookDeliveryRow, type WebhookEndpointRow } from './webhook-endpoint.mapper';
import { newWebhookSecret } from './webhook-secret';
import { checkWebhookUrl } from './webhook-url';
import { WebhooksAudit } from './webhooks.audit';
import { WebhooksError } from './webhooks.errors';

const ENDPOINT_COLUMNS = Prisma.sql`id, url, event_types AS "eventTypes", description, seq, created_at AS "createdAt"`;
const DELIVERY_COLUMNS = Prisma.sql`d.id, d.event_id AS "eventId", e.action, d.status, d.attempts, d.last_attempt_at AS "lastAttemptAt",
  d.last_response_status AS "lastResponseStatus", d.last_error AS "lastError", d.next_attempt_at AS "nextAttemptAt",
  d.delivered_at AS "deliveredAt", d.seq, d.created_at AS "createdAt"`;
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const endpointNotFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No webhook endpoint ${id} exists in this organization.`);

@Injectable()
export class WebhookEndpointsService {
  /** SqlHost: raw statements only, so the writes run in the SQL transaction of @Idempotent({ sqlOnly: true }). */
  constructor(
    private readonly txHost: SqlHost,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * Under WEBHOOK_ENDPOINTS_PER_ORGANIZATION: the organization's row is locked first (FOR NO KEY
   * UPDATE, so creators of one organization's endpoints take turns on every instance while its other
   * writes go on), then one statement counts the endpoints, as committed by then, and writes the
   * endpoint, its audit event and the event's deliveries to matching endpoints, this one included.
   */
  async create(organizationId: string, actor: AuditActor, input: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    checkWebhookUrl(input.url, this.config.WEBHOOK_ALLOW_INSECURE_TARGETS === 'true');
    const limit = this.config.WEBHOOK_ENDPOINTS_PER_ORGANIZATION;
    const now = this.clock.now();
    const secret = newWebhookSecret();
    const row = await this.txHost.withSqlTransaction(async () => {
      await this.txHost.sql.query(Prisma.sql`SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid ${RowLock.forNoKeyUpdate}`);
      const [created] = await this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
        WITH endpoint AS (
          INSERT INTO webhook_endpoints (id, organization_id, url, event_types, description, secret, created_at)
          SELECT ${randomUUID()}::uuid, ${organizationId}::uuid, ${input.url}, ${input.event_types}::text[], ${input.description ?? null}, ${secret}, ${now}
          WHERE (SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid) < ${limit}
          RETURNING id, organization_id, url, event_types, description, seq, created_at
        ), ${endpointAuditEventInsert(this.audit, 'created', 'endpoint', now, actor)}
        SELECT ${ENDPOINT_COLUMNS} FROM endpoint`);
      return created;
    });
    if (!row) {
      throw new AppError(
        WebhooksError.WEBHOOK_ENDPOINT_LIMIT_REACHED,
        `This organization has ${limit} webhook endpoints, as many as it may have; delete one before creating another.`,
      );
    }
    return { ...toWebhookEndpointDto(row), secret };
  }

  async get(organizationId: string, id: string): Promise<WebhookEndpointDto> {
    const [row] = await this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
      SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    if (!row) throw endpointNotFound(id);
    return toWebhookEndpointDto(row);
  }

  /** Keyset pagination on (seq, id), one row more than the page. */
  async list(organizationId: string, query: WebhookPageQueryDto): Promise<WebhookEndpointPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['webhook_endpoints', organizationId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'organization');
    const after = position ? Prisma.sql`AND (seq, id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    const rows = await this.txHost.sql.query<WebhookEndpointRow>(Prisma.sql`
      SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid ${after}
      ORDER BY seq, id LIMIT ${pageSize + 1}`);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(toWebhookEndpointDto), next_page_token: page.next_page_token };
  }

  /**
   * One statement: removes the endpoint with its deliveries (pending ones are not sent; an attempt
   * under way finishes but records nothing) and writes its audit event, delivered to the
   * organization's other endpoints that subscribe to it.
   */
  async delete(organizationId: string, actor: AuditActor, id: string): Promise<void> {
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      WITH removed AS (
        DELETE FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
        RETURNING id, organization_id, url, event_types, description
      ), ${endpointAuditEventInsert(this.audit, 'deleted', 'removed', this.clock.now(), actor)}
      SELECT id FROM removed`);
    if (rows.length === 0) throw endpointNotFound(id);
  }

  /**
   * The current secret keeps signing, beside the new one, for 24 hours; a secret rotated out before
   * is dropped. One statement with its audit event, in which both secrets show only as redacted.
   */
  async rotateSecret(organizationId: string, actor: AuditActor, id: string): Promise<RotatedSecretDto> {
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      WITH rotated AS (
        UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ${expiresAt}, secret = ${secret}
        WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid RETURNING id, organization_id
      ), ${this.audit.insertFrom({ actor, at: now }, Prisma.sql`rotated`, {
        organizationId: Prisma.sql`rotated.organization_id`,
        action: WebhooksAudit.EndpointSecretRotated,
        resourceId: Prisma.sql`rotated.id::text`,
        changes: { secret: { old: REDACTED, new: REDACTED } },
      })}
      SELECT id FROM rotated`);
    if (rows.length === 0) throw endpointNotFound(id);
    return { id, secret, previous_secret_expires_at: expiresAt.toISOString() };
  }

  /** Newest first, keyset on seq; an endpoint of another organization is as missing as one that never was. */
  async listDeliveries(organizationId: string, endpointId: string, query: WebhookPageQueryDto): Promise<WebhookDeliveryPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['webhook_deliveries', organizationId, endpointId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'endpoint');
    const before = position ? Prisma.sql`AND d.seq < ${position.after}::bigint` : Prisma.empty;
    const rows = await this.txHost.sql.query<WebhookDeliveryRow>(Prisma.sql`
      SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN audit_events e ON e.organization_id = d.organization_id AND e.id = d.event_id
      WHERE d.endpoint_id = ${endpointId}::uuid AND d.organization_id = ${organizationId}::uuid ${before}
      ORDER BY d.seq DESC LIMIT ${pageSize + 1}`);
    if (rows.length === 0) await this.get(organizationId, endpointId);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(toWebhookDeliveryDto), next_page_token: page.next_page_token };
  }

  /**
   * Queues a delivery again, due now, with a fresh retry schedule and the same webhook-id, and
   * writes webhook_delivery.redelivered with the status and attempts it had (the UPDATE's join to
   * the row as the statement found it). An attempt under way records nothing once its lease is gone.
   */
  async redeliver(organizationId: string, actor: AuditActor, deliveryId: string): Promise<WebhookDeliveryDto> {
    const now = this.clock.now();
    const [row] = await this.txHost.sql.query<WebhookDeliveryRow>(Prisma.sql`
      WITH queued AS (
        UPDATE webhook_deliveries d SET status = 'pending', attempts = 0, next_attempt_at = ${now}, lease_id = NULL, delivered_at = NULL
        FROM webhook_deliveries before
        WHERE d.organization_id = ${organizationId}::uuid AND d.id = ${deliveryId}::uuid AND before.id = d.id
        RETURNING d.*, before.status AS status_before, before.attempts AS attempts_before
      ), ${this.audit.insertFrom({ actor, at: now }, Prisma.sql`queued`, {
        organizationId: Prisma.sql`queued.organization_id`,
        action: WebhooksAudit.DeliveryRedelivered,
        resourceId: Prisma.sql`queued.id::text`,
        changes: sqlChanges({
          status: { old: Prisma.sql`queued.status_before`, new: Prisma.sql`queued.status` },
          attempts: { old: Prisma.sql`queued.attempts_before`, new: Prisma.sql`queued.attempts` },
        }),
      })}
      SELECT ${DELIVERY_COLUMNS} FROM queued d JOIN audit_events e ON e.organization_id = d.organization_id AND e.id = d.event_id`);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `No webhook delivery ${deliveryId} exists in this organization.`);
    return toWebhookDeliveryDto(row);
  }
}
