/**
 * The audit actions (issue 24), which are the event types a webhook endpoint subscribes to.
 * Kept here until the audit module owns the list; `*` subscribes to every one.
 */
export const AUDIT_ACTIONS = [
  'department.created',
  'expert_suite.updated',
  'upload.created',
  'api_key.created',
  'api_key.revoked',
  'subscription.updated',
  'category.created',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
] as const;

export const EVERY_EVENT_TYPE = '*';

export const EVENT_TYPE_VALUES: readonly string[] = [...AUDIT_ACTIONS, EVERY_EVENT_TYPE];
