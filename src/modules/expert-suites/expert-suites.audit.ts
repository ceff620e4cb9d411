import { defineAuditAction } from '../../common/audit/audit-actions';

/** The suites' actions; suites and categories are created by the admin CLI. */
export const ExpertSuitesAudit = {
  SuiteCreated: defineAuditAction('expert_suite.created'),
  SuiteUpdated: defineAuditAction('expert_suite.updated'),
  CategoryCreated: defineAuditAction('category.created'),
} as const;
