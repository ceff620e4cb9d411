import { SCIM_MAX_PAGE_SIZE } from './list-paging';
import {
  advertisedAttributes,
  CORE_GROUP_SCHEMA,
  CORE_USER_SCHEMA,
  ENTERPRISE_USER_SCHEMA,
  GROUP_RESOURCE_TYPE,
  resourceTypeDocument,
  SCIM_RESOURCE_TYPES,
  SCIM_SCHEMAS,
  schemaDocument,
  serviceProviderConfigDocument,
  USER_RESOURCE_TYPE,
  WORKSPACE_GROUP_SCHEMA,
  type ScimAttributeDefinition,
} from './schemas';

const BASE = 'https://api.example.com/scim/v2';
const names = (attributes: ScimAttributeDefinition[] | undefined) => (attributes ?? []).map((attribute) => attribute.name);
const find = (attributes: ScimAttributeDefinition[], name: string) => attributes.find((attribute) => attribute.name === name)!;

function everyAttribute(visit: (attribute: ScimAttributeDefinition, level: number) => void) {
  for (const schema of SCIM_SCHEMAS) {
    for (const attribute of schema.attributes) {
      visit(attribute, 1);
      for (const sub of attribute.subAttributes ?? []) visit(sub, 2);
    }
  }
}

describe('the advertised schemas', () => {
  it('write every characteristic of every attribute (RFC 7643 §7)', () => {
    everyAttribute((attribute) => {
      expect(Object.keys(attribute)).toEqual(expect.arrayContaining(['name', 'type', 'multiValued', 'description', 'required', 'caseExact', 'mutability', 'returned', 'uniqueness']));
      expect(attribute.description.length).toBeGreaterThan(0);
      expect(attribute.subAttributes !== undefined).toBe(attribute.type === 'complex');
      if (attribute.type === 'reference') expect(attribute.referenceTypes?.length).toBeGreaterThan(0);
    });
  });

  it('nest complex attributes one level only, with names unique ignoring case at each level', () => {
    everyAttribute((attribute, level) => expect(level === 1 || attribute.type !== 'complex').toBe(true));
    for (const schema of SCIM_SCHEMAS) {
      const lists = [schema.attributes, ...schema.attributes.map((attribute) => attribute.subAttributes ?? [])];
      for (const list of lists) expect(new Set(names(list).map((name) => name.toLowerCase())).size).toBe(list.length);
    }
  });

  it('core User: every attribute of RFC 7643 §4.1 but password, which the service does not store', () => {
    expect(names(CORE_USER_SCHEMA.attributes)).toEqual([
      'userName',
      'name',
      'displayName',
      'nickName',
      'profileUrl',
      'title',
      'userType',
      'preferredLanguage',
      'locale',
      'timezone',
      'active',
      'emails',
      'phoneNumbers',
      'ims',
      'photos',
      'addresses',
      'groups',
      'entitlements',
      'roles',
      'x509Certificates',
    ]);
    expect(names(find(CORE_USER_SCHEMA.attributes, 'name').subAttributes)).toEqual(['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix']);
    expect(names(find(CORE_USER_SCHEMA.attributes, 'emails').subAttributes)).toEqual(['value', 'display', 'type', 'primary']);
    expect(find(CORE_USER_SCHEMA.attributes, 'userName')).toMatchObject({ required: true, uniqueness: 'server', caseExact: false });
    expect(find(CORE_USER_SCHEMA.attributes, 'emails')).toMatchObject({ type: 'complex', multiValued: true });
    expect(find(CORE_USER_SCHEMA.attributes, 'active')).toMatchObject({ type: 'boolean', multiValued: false });
  });

  it('core User: groups are read-only, sub-attributes included', () => {
    const groups = find(CORE_USER_SCHEMA.attributes, 'groups');
    expect(groups.mutability).toBe('readOnly');
    expect(groups.subAttributes!.map((sub) => sub.mutability)).toEqual(['readOnly', 'readOnly', 'readOnly', 'readOnly']);
  });

  it('enterprise User extension (RFC 7643 §4.3)', () => {
    expect(ENTERPRISE_USER_SCHEMA.id).toBe('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
    expect(names(ENTERPRISE_USER_SCHEMA.attributes)).toEqual(['employeeNumber', 'costCenter', 'organization', 'division', 'department', 'manager']);
    expect(names(find(ENTERPRISE_USER_SCHEMA.attributes, 'manager').subAttributes)).toEqual(['value', '$ref', 'displayName']);
  });

  it('core Group (RFC 7643 §4.2): displayName required, members with value, $ref, type and display', () => {
    expect(names(CORE_GROUP_SCHEMA.attributes)).toEqual(['displayName', 'members']);
    expect(find(CORE_GROUP_SCHEMA.attributes, 'displayName').required).toBe(true);
    expect(names(find(CORE_GROUP_SCHEMA.attributes, 'members').subAttributes)).toEqual(['value', '$ref', 'type', 'display']);
  });

  it('our Group extension names the parent department', () => {
    expect(WORKSPACE_GROUP_SCHEMA.id).toBe('urn:ietf:params:scim:schemas:extension:workspace:2.0:Group');
    expect(WORKSPACE_GROUP_SCHEMA.attributes).toEqual([expect.objectContaining({ name: 'parentId', type: 'string', mutability: 'readWrite', required: false })]);
  });

  it('advertises no attribute the service never returns', () => {
    everyAttribute((attribute) => expect(attribute.returned).not.toBe('never'));
  });
});

describe('the discovery documents', () => {
  it('a schema, with its schemas and meta', () => {
    const document = schemaDocument(ENTERPRISE_USER_SCHEMA, BASE);
    expect(document).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      name: 'EnterpriseUser',
      attributes: ENTERPRISE_USER_SCHEMA.attributes,
      meta: { resourceType: 'Schema', location: `${BASE}/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:User` },
    });
  });

  it('the User resource type (RFC 7643 §6)', () => {
    expect(resourceTypeDocument(USER_RESOURCE_TYPE, BASE)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'User Account',
      schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
      schemaExtensions: [{ schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', required: false }],
      meta: { resourceType: 'ResourceType', location: `${BASE}/ResourceTypes/User` },
    });
  });

  it('the Group resource type, with our extension', () => {
    expect(resourceTypeDocument(GROUP_RESOURCE_TYPE, BASE)).toMatchObject({
      endpoint: '/Groups',
      schema: 'urn:ietf:params:scim:schemas:core:2.0:Group',
      schemaExtensions: [{ schema: 'urn:ietf:params:scim:schemas:extension:workspace:2.0:Group', required: false }],
    });
  });

  it('every resource type names advertised schemas only', () => {
    for (const resourceType of SCIM_RESOURCE_TYPES) {
      for (const schema of [resourceType.schema, ...resourceType.schemaExtensions.map((extension) => extension.schema)]) expect(SCIM_SCHEMAS).toContain(schema);
    }
  });

  it('the service provider configuration (RFC 7643 §5): PATCH, filters up to the page size, ETags and Bearer keys; no bulk, sort or password change', () => {
    const document = serviceProviderConfigDocument(BASE);
    expect(document).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: SCIM_MAX_PAGE_SIZE },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      meta: { resourceType: 'ServiceProviderConfig', location: `${BASE}/ServiceProviderConfig` },
    });
    expect(document.authenticationSchemes).toEqual([expect.objectContaining({ type: 'oauthbearertoken', primary: true, description: expect.stringContaining('admin.v1.scim.provision') })]);
  });
});

describe('advertisedAttributes', () => {
  it('Users: common, core and enterprise attributes and sub-attributes, lower-cased', () => {
    const advertised = advertisedAttributes(USER_RESOURCE_TYPE);
    for (const name of [
      'schemas',
      'id',
      'externalid',
      'meta.lastmodified',
      'username',
      'name',
      'name.givenname',
      'emails.value',
      'addresses.streetaddress',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:employeenumber',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:manager.value',
    ]) {
      expect(advertised.has(name)).toBe(true);
    }
    for (const name of ['password', 'userName', 'members', 'employeenumber', 'urn:ietf:params:scim:schemas:extension:workspace:2.0:group']) expect(advertised.has(name)).toBe(false);
  });

  it('Groups: displayName, members and our extension', () => {
    const advertised = advertisedAttributes(GROUP_RESOURCE_TYPE);
    for (const name of ['id', 'externalid', 'displayname', 'members', 'members.value', 'members.$ref', 'urn:ietf:params:scim:schemas:extension:workspace:2.0:group:parentid']) {
      expect(advertised.has(name)).toBe(true);
    }
    expect(advertised.has('username')).toBe(false);
  });

  it('with when each is returned: id and schemas always, the others by default', () => {
    const advertised = advertisedAttributes(USER_RESOURCE_TYPE);
    expect(advertised.get('id')).toBe('always');
    expect(advertised.get('schemas')).toBe('always');
    expect(advertised.get('meta')).toBe('default');
    expect(advertised.get('username')).toBe('default');
    expect(advertised.get('urn:ietf:params:scim:schemas:extension:enterprise:2.0:user')).toBe('default');
  });
});
