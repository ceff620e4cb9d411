import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in AuditEventsModule.definitions. */
export const AuditEventsScopeDefinitions = {
  Read: defineScope('admin.v1.audit.read', 'Read the audit trail: who changed what and when, newest first, filtered and page by page.'),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const AuditEventsScope = scopeNames(AuditEventsScopeDefinitions);
