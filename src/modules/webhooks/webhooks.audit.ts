import { defineAuditAction } from '../../common/audit/audit-actions';

export const WebhooksAudit = {
  EndpointCreated: defineAuditAction('webhook_endpoint.created'),
  EndpointDeleted: defineAuditAction('webhook_endpoint.deleted'),
  EndpointSecretRotated: defineAuditAction('webhook_endpoint.secret_rotated'),
  DeliveryRedelivered: defineAuditAction('webhook_delivery.redelivered'),
} as const;
