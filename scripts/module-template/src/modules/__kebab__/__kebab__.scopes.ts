import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scopes, with what each grants: listed in __Plural__Module.definitions. */
export const __Plural__ScopeDefinitions = {
  Read: defineScope('admin.v1.__kebab__.read', 'Read __words__: get one, list them page by page.'),
  Manage: defineScope('admin.v1.__kebab__.manage', 'Change __words__: create, rename and delete them.'),
} as const;

/** Their names, as @RequireScope and API keys take them. */
export const __Plural__Scope = scopeNames(__Plural__ScopeDefinitions);
