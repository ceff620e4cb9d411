import { defineAuditAction } from '../../common/audit/audit-actions';

export const DirectoryAudit = {
  DepartmentCreated: defineAuditAction('department.created'),
  DepartmentUpdated: defineAuditAction('department.updated'),
  DepartmentDeleted: defineAuditAction('department.deleted'),
} as const;
