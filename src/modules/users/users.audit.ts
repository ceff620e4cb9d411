import { defineAuditAction } from '../../common/audit/audit-actions';

/** What the audit trail records of the users (docs/audit.md): one constant per action the repository writes. */
export const UsersAudit = {
  Created: defineAuditAction('user.created'),
  Updated: defineAuditAction('user.updated'),
  Deleted: defineAuditAction('user.deleted'),
} as const;
