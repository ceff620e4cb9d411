import { defineScope } from '../../common/auth/scope-catalog';

export const QuotaScope = {
  Read: defineScope('admin.v1.quota.read', "Read the organization's metering policy."),
} as const;
