import { defineAuditAction } from '../audit/audit-actions';

/** API keys are issued and revoked by the admin CLI. */
export const AuthAudit = {
  ApiKeyCreated: defineAuditAction('api_key.created'),
  ApiKeyRevoked: defineAuditAction('api_key.revoked'),
} as const;
