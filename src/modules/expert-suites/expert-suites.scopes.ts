import { defineScope } from '../../common/auth/scope-catalog';

export const ExpertSuitesScope = {
  Manage: defineScope('admin.v1.expert-suites.manage', 'Change expert suites: update one (PATCH), upload resource packages and icons.'),
} as const;
