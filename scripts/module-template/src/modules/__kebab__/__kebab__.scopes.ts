import { defineScope } from '../../common/auth/scope-catalog';

export const __Plural__Scope = {
  Read: defineScope('admin.v1.__kebab__.read', 'Read __words__: get one, list them page by page.'),
  Manage: defineScope('admin.v1.__kebab__.manage', 'Change __words__: create, rename and delete them.'),
} as const;
