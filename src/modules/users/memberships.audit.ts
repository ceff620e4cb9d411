import { defineAuditAction } from '../../common/audit/audit-actions';

/** Membership changes are recorded on the department (resource_type `department`); `changes` names the user. */
export const MembershipsAudit = {
  MemberAdded: defineAuditAction('department.member_added'),
  MemberRemoved: defineAuditAction('department.member_removed'),
} as const;
