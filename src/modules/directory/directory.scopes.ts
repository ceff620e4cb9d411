import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in DirectoryModule.definitions. */
export const DirectoryScopeDefinitions = {
  Read: defineScope(
    'admin.v1.user-directory.read',
    'Read the directory: get a department and its ancestors, list the children or the whole subtree of one, find one by external_id; get and list users and the members of a department.',
  ),
  Manage: defineScope(
    'admin.v1.user-directory.manage',
    'Change the directory: create, rename, move, reorder and delete departments; create, update and delete users and their memberships.',
  ),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const DirectoryScope = scopeNames(DirectoryScopeDefinitions);
