import { defineScope, scopeNames } from '../../common/auth/scope-catalog';

/** The scope of every SCIM operation (CONTRACT.md section 12): listed in ScimModule.definitions. */
export const ScimScopeDefinitions = {
  Provision: defineScope(
    'admin.v1.scim.provision',
    'Provision the directory over SCIM 2.0 (/scim/v2), as an identity provider such as Microsoft Entra ID or Okta does: create, read, ' +
      'replace, update and delete its users, and read the service provider configuration, resource types and schemas.',
  ),
} as const;

export const ScimScope = scopeNames(ScimScopeDefinitions);
