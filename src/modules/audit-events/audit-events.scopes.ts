import { defineScope } from '../../common/auth/scope-catalog';

export const AuditEventsScope = {
  Read: defineScope('admin.v1.audit.read', 'Read the audit trail: who changed what and when, newest first, filtered and page by page.'),
} as const;
