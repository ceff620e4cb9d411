import type { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import type { WebhookEndpointDto } from './dto/webhook-endpoint.dto';
import type { WebhookDeliveryRow, WebhookEndpointRow } from './webhook-endpoints.repository';

export function toWebhookEndpointDto(row: WebhookEndpointRow): WebhookEndpointDto {
  return { id: row.id, url: row.url, event_types: row.eventTypes, description: row.description, created_at: row.createdAt.toISOString() };
}

export function toWebhookDeliveryDto(row: WebhookDeliveryRow): WebhookDeliveryDto {
  return {
    delivery_id: row.id,
    event_id: row.eventId,
    event_type: row.action,
    status: row.status,
    attempts: row.attempts,
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
    last_response_status: row.lastResponseStatus,
    last_error: row.lastError,
    // A delivery leased by an attempt under way is due again only if that attempt never reports.
    next_attempt_at: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
