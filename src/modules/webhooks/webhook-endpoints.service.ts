import type { AuditActor } from '../../common/audit/audit-actor';
import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { AppConfig } from '../../config/app-config';
import type { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import type { WebhookPageQueryDto } from './dto/page-query.dto';
import type { WebhookDeliveryDto, WebhookDeliveryPageDto } from './dto/webhook-delivery.dto';
import type { CreatedWebhookEndpointDto, RotatedSecretDto, WebhookEndpointDto, WebhookEndpointPageDto } from './dto/webhook-endpoint.dto';
import { toWebhookDeliveryDto, toWebhookEndpointDto } from './webhook-endpoint.mapper';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { newWebhookSecret } from './webhook-secret';
import { checkWebhookUrl } from './webhook-url';
import { WebhooksError } from './webhooks.errors';

const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const endpointNotFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No webhook endpoint ${id} exists in this organization.`);

@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** At most WEBHOOK_ENDPOINTS_PER_ORGANIZATION per organization; the answer carries the new signing secret. */
  async create(organizationId: string, actor: AuditActor, input: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    checkWebhookUrl(input.url, this.config.WEBHOOK_ALLOW_INSECURE_TARGETS === 'true');
    const limit = this.config.WEBHOOK_ENDPOINTS_PER_ORGANIZATION;
    const secret = newWebhookSecret();
    const row = await this.endpoints.insertUnderLimit(
      organizationId,
      { url: input.url, eventTypes: input.event_types, description: input.description ?? null, secret },
      limit,
      { actor, at: this.clock.now() },
    );
    if (!row) {
      throw new AppError(
        WebhooksError.WEBHOOK_ENDPOINT_LIMIT_REACHED,
        `This organization has ${limit} webhook endpoints, as many as it may have; delete one before creating another.`,
      );
    }
    return { ...toWebhookEndpointDto(row), secret };
  }

  async get(organizationId: string, id: string): Promise<WebhookEndpointDto> {
    const row = await this.endpoints.findById(organizationId, id);
    if (!row) throw endpointNotFound(id);
    return toWebhookEndpointDto(row);
  }

  /** Keyset pagination on (seq, id), one row more than the page. */
  async list(organizationId: string, query: WebhookPageQueryDto): Promise<WebhookEndpointPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['webhook_endpoints', organizationId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'organization');
    const rows = await this.endpoints.list(organizationId, position && { seq: position.after, id: position.id }, pageSize + 1);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(toWebhookEndpointDto), next_page_token: page.next_page_token };
  }

  /** Pending deliveries are not sent; an attempt under way finishes but records nothing. */
  async delete(organizationId: string, actor: AuditActor, id: string): Promise<void> {
    if (!(await this.endpoints.delete(organizationId, id, { actor, at: this.clock.now() }))) throw endpointNotFound(id);
  }

  /** The current secret keeps signing, beside the new one, for 24 hours; a secret rotated out before is dropped. */
  async rotateSecret(organizationId: string, actor: AuditActor, id: string): Promise<RotatedSecretDto> {
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    if (!(await this.endpoints.rotateSecret(organizationId, id, secret, expiresAt, { actor, at: now }))) throw endpointNotFound(id);
    return { id, secret, previous_secret_expires_at: expiresAt.toISOString() };
  }

  /** Newest first, keyset on seq; an endpoint of another organization is as missing as one that never was. */
  async listDeliveries(organizationId: string, endpointId: string, query: WebhookPageQueryDto): Promise<WebhookDeliveryPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['webhook_deliveries', organizationId, endpointId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'endpoint');
    const rows = await this.endpoints.listDeliveries(organizationId, endpointId, position?.after, pageSize + 1);
    if (rows.length === 0) await this.get(organizationId, endpointId);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(toWebhookDeliveryDto), next_page_token: page.next_page_token };
  }

  /** Due now, with a fresh retry schedule and the same webhook-id; an attempt under way records nothing once its lease is gone. */
  async redeliver(organizationId: string, actor: AuditActor, deliveryId: string): Promise<WebhookDeliveryDto> {
    const row = await this.endpoints.requeueDelivery(organizationId, deliveryId, { actor, at: this.clock.now() });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `No webhook delivery ${deliveryId} exists in this organization.`);
    return toWebhookDeliveryDto(row);
  }
}
