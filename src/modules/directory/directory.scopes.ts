import { defineScope } from '../../common/auth/scope-catalog';

export const DirectoryScope = {
  Read: defineScope('admin.v1.user-directory.read', 'Read the department directory: get a department and its ancestors, list the children or the whole subtree of one, find one by external_id.'),
  Manage: defineScope('admin.v1.user-directory.manage', 'Change the department directory: create, rename, move, reorder and delete departments.'),
} as const;
