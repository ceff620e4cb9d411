import { defineScope } from '../../common/auth/scope-catalog';

export const WebhooksScope = {
  Manage: defineScope(
    'admin.v1.webhooks.manage',
    'Manage webhook endpoints: create, list, read, delete them, rotate their signing secrets, see their deliveries and redeliver.',
  ),
} as const;
