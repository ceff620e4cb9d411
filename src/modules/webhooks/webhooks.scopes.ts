import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in WebhooksModule.definitions. */
export const WebhooksScopeDefinitions = {
  Manage: defineScope(
    'admin.v1.webhooks.manage',
    'Manage webhook endpoints: create, list, read, delete them, rotate their signing secrets, see their deliveries and redeliver.',
  ),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const WebhooksScope = scopeNames(WebhooksScopeDefinitions);
