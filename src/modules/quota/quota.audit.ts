import { defineAuditAction } from '../../common/audit/audit-actions';

/** The subscription's anchor is moved by the admin CLI. */
export const QuotaAudit = {
  SubscriptionUpdated: defineAuditAction('subscription.updated'),
} as const;
