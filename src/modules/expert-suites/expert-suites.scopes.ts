import { defineScope } from '../../common/auth/scope-catalog';

export const ExpertSuitesScope = {
  Read: defineScope('admin.v1.expert-suites.read', 'Read expert suites: get one (with its ETag), list them by status or category.'),
  Manage: defineScope('admin.v1.expert-suites.manage', 'Change expert suites: update one (PATCH), upload resource packages and icons.'),
} as const;
