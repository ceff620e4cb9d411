import { defineScope } from '../../common/auth/scope-catalog';

export const UsersScope = {
  Read: defineScope('admin.v1.users.read', 'Read users: get one, list them page by page.'),
  Manage: defineScope('admin.v1.users.manage', 'Change users: create, rename and delete them.'),
} as const;
