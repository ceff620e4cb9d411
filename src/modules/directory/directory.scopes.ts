import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in DirectoryModule.definitions. */
export const DirectoryScopeDefinitions = {
  Read: defineScope('admin.v1.user-directory.read', 'Read the department directory: get a department, list the children of one, find one by external_id.'),
  Manage: defineScope('admin.v1.user-directory.manage', 'Change the department directory: create departments.'),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const DirectoryScope = scopeNames(DirectoryScopeDefinitions);
