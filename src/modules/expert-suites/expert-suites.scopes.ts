import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in ExpertSuitesModule.definitions. */
export const ExpertSuitesScopeDefinitions = {
  Read: defineScope('admin.v1.expert-suites.read', 'Read expert suites: get one (with its ETag), list them by status or category.'),
  Manage: defineScope('admin.v1.expert-suites.manage', 'Change expert suites: update one (PATCH), upload resource packages and icons.'),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const ExpertSuitesScope = scopeNames(ExpertSuitesScopeDefinitions);
