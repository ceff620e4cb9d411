import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in QuotaModule.definitions. */
export const QuotaScopeDefinitions = {
  Read: defineScope('admin.v1.quota.read', "Read the organization's metering policy."),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const QuotaScope = scopeNames(QuotaScopeDefinitions);
