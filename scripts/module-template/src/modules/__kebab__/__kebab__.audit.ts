import { defineAuditAction } from '../../common/audit/audit-actions';

/** What the audit trail records of the __words__ (docs/audit.md): one constant per action the repository writes. */
export const __Plural__Audit = {
  Created: defineAuditAction('__singular_snake__.created'),
  Updated: defineAuditAction('__singular_snake__.updated'),
  Deleted: defineAuditAction('__singular_snake__.deleted'),
} as const;
