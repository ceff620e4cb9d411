import { defineAuditAction } from '../../common/audit/audit-actions';

export const DirectoryAudit = {
  DepartmentCreated: defineAuditAction('department.created'),
} as const;
