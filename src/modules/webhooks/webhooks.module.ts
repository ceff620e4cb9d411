import { Module } from '@nestjs/common';
import { DeliveryOutbox } from './delivery-outbox';
import { DeliveryWorker } from './delivery-worker';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookMetrics } from './webhook-metrics';

/** Webhook endpoints and the delivery of audit events to them (docs/webhooks.md). */
@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, DeliveryOutbox, DeliveryWorker, WebhookMetrics],
})
export class WebhooksModule {}
