import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { DeliveryOutboxRepository } from './delivery-outbox.repository';
import { DeliveryWorker } from './delivery-worker';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookMetrics } from './webhook-metrics';
import { WebhooksAudit } from './webhooks.audit';
import { WebhooksError } from './webhooks.errors';
import { WebhooksScopeDefinitions } from './webhooks.scopes';

/** Webhook endpoints and the delivery of audit events to them (docs/webhooks.md). */
@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookEndpointsRepository, DeliveryOutboxRepository, DeliveryWorker, WebhookMetrics],
})
export class WebhooksModule {
  static readonly definitions: ModuleDefinitions = { scopes: WebhooksScopeDefinitions, errors: WebhooksError, auditActions: WebhooksAudit };
}
