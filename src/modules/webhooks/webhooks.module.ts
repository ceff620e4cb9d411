import { Module } from '@nestjs/common';
import { DeliveryOutboxRepository } from './delivery-outbox.repository';
import { DeliveryWorker } from './delivery-worker';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookMetrics } from './webhook-metrics';

/** Webhook endpoints and the delivery of audit events to them (docs/webhooks.md). */
@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookEndpointsRepository, DeliveryOutboxRepository, DeliveryWorker, WebhookMetrics],
})
export class WebhooksModule {}
