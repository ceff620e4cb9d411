import { SCIM_MAX_PAGE_SIZE } from './list-paging';

// The schemas, resource types and service provider configuration the service advertises
// (RFC 7643 §§5–8): data served by /scim/v2/Schemas, /ResourceTypes and /ServiceProviderConfig,
// and the one list of the attributes SCIM keeps (CONTRACT §12: others are ignored).

export type ScimAttributeType = 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'binary' | 'complex';

/** One attribute with all its characteristics written out (RFC 7643 §7), as /Schemas serves it. */
export interface ScimAttributeDefinition {
  name: string;
  type: ScimAttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttributeDefinition[];
}

export interface ScimSchemaDefinition {
  id: string;
  name: string;
  description: string;
  attributes: ScimAttributeDefinition[];
}

export interface ScimResourceTypeDefinition {
  id: string;
  name: string;
  /** Relative to the SCIM base URL. */
  endpoint: string;
  description: string;
  schema: ScimSchemaDefinition;
  schemaExtensions: { schema: ScimSchemaDefinition; required: boolean }[];
}

export const SCIM_SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  // Our own extension, named the way Entra ID expects a custom extension's URN to look.
  workspaceGroup: 'urn:ietf:params:scim:schemas:extension:workspace:2.0:Group',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
} as const;

type Characteristics = Partial<Omit<ScimAttributeDefinition, 'name' | 'type' | 'description' | 'subAttributes'>>;

/** An attribute with RFC 7643 §2.2's defaults for the characteristics not given. */
function attribute(name: string, type: ScimAttributeType, description: string, characteristics: Characteristics = {}): ScimAttributeDefinition {
  return { name, type, multiValued: false, description, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...characteristics };
}

function complex(name: string, description: string, subAttributes: ScimAttributeDefinition[], characteristics: Characteristics = {}): ScimAttributeDefinition {
  return { ...attribute(name, 'complex', description, characteristics), subAttributes };
}

/** A multi-valued attribute with the usual value, display, type and primary sub-attributes (RFC 7643 §2.4). */
function multiValued(name: string, description: string, value: ScimAttributeDefinition, types: string[]): ScimAttributeDefinition {
  return complex(
    name,
    description,
    [
      value,
      attribute('display', 'string', 'A human-readable name, primarily used for display purposes.'),
      types.length === 0
        ? attribute('type', 'string', "A label indicating the attribute's function.")
        : attribute('type', 'string', `A label indicating the attribute's function, e.g. ${types.map((type) => `'${type}'`).join(', ')}.`, { canonicalValues: types }),
      attribute('primary', 'boolean', "A Boolean value indicating the 'primary' or preferred attribute value for this attribute. The primary attribute value 'true' MUST appear no more than once."),
    ],
    { multiValued: true },
  );
}

const readOnly = (definition: ScimAttributeDefinition): ScimAttributeDefinition => ({
  ...definition,
  mutability: 'readOnly',
  ...(definition.subAttributes ? { subAttributes: definition.subAttributes.map(readOnly) } : {}),
});

// `password` (writeOnly, returned never) is not advertised: the service stores no passwords, so a
// password a client sends is an attribute in no advertised schema, ignored like any other.
export const CORE_USER_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMA.user,
  name: 'User',
  description: 'User Account',
  attributes: [
    attribute('userName', 'string', 'Unique identifier for the User, typically used by the user to directly authenticate to the service provider. Unique within the organization, compared ignoring case.', {
      required: true,
      uniqueness: 'server',
    }),
    complex('name', "The components of the user's real name.", [
      attribute('formatted', 'string', "The full name, including all middle names, titles, and suffixes as appropriate, formatted for display (e.g., 'Ms. Barbara J Jensen, III')."),
      attribute('familyName', 'string', "The family name of the User, or last name in most Western languages (e.g., 'Jensen' given the full name 'Ms. Barbara J Jensen, III')."),
      attribute('givenName', 'string', "The given name of the User, or first name in most Western languages (e.g., 'Barbara' given the full name 'Ms. Barbara J Jensen, III')."),
      attribute('middleName', 'string', "The middle name(s) of the User (e.g., 'Jane' given the full name 'Ms. Barbara J Jensen, III')."),
      attribute('honorificPrefix', 'string', "The honorific prefix(es) of the User, or title in most Western languages (e.g., 'Ms.' given the full name 'Ms. Barbara J Jensen, III')."),
      attribute('honorificSuffix', 'string', "The honorific suffix(es) of the User, or suffix in most Western languages (e.g., 'III' given the full name 'Ms. Barbara J Jensen, III')."),
    ]),
    attribute('displayName', 'string', 'The name of the User, suitable for display to end-users.'),
    attribute('nickName', 'string', 'The casual way to address the user in real life.'),
    attribute('profileUrl', 'reference', "A fully qualified URL pointing to a page representing the User's online profile.", { referenceTypes: ['external'] }),
    attribute('title', 'string', "The user's title, such as 'Vice President'."),
    attribute('userType', 'string', "Used to identify the relationship between the organization and the user, e.g. 'Contractor', 'Employee', 'Intern'."),
    attribute('preferredLanguage', 'string', "Indicates the User's preferred written or spoken language, e.g. 'en-US' (RFC 7231 Accept-Language)."),
    attribute('locale', 'string', "Used to indicate the User's default location for localizing items such as currency and date formats, e.g. 'en-US'."),
    attribute('timezone', 'string', "The User's time zone in the 'Olson' time zone database format, e.g. 'America/Los_Angeles'."),
    attribute('active', 'boolean', "A Boolean value indicating the User's administrative status."),
    multiValued('emails', 'Email addresses for the user. The primary one (else the work one) is the directory user\'s email.', attribute('value', 'string', 'Email address for the User.'), [
      'work',
      'home',
      'other',
    ]),
    multiValued('phoneNumbers', 'Phone numbers for the User.', attribute('value', 'string', 'Phone number of the User.'), ['work', 'home', 'mobile', 'fax', 'pager', 'other']),
    multiValued('ims', 'Instant messaging addresses for the User.', attribute('value', 'string', 'Instant messaging address for the User.'), [
      'aim',
      'gtalk',
      'icq',
      'xmpp',
      'msn',
      'skype',
      'qq',
      'yahoo',
    ]),
    multiValued('photos', 'URLs of photos of the User.', attribute('value', 'reference', 'URL of a photo of the User.', { referenceTypes: ['external'] }), ['photo', 'thumbnail']),
    complex(
      'addresses',
      'A physical mailing address for this User.',
      [
        attribute('formatted', 'string', 'The full mailing address, formatted for display or use with a mailing label.'),
        attribute('streetAddress', 'string', 'The full street address component, which may include house number, street name, P.O. box, and multi-line extended street address information.'),
        attribute('locality', 'string', 'The city or locality component.'),
        attribute('region', 'string', 'The state or region component.'),
        attribute('postalCode', 'string', 'The zip code or postal code component.'),
        attribute('country', 'string', 'The country name component (ISO 3166-1 alpha-2 code).'),
        attribute('type', 'string', "A label indicating the attribute's function, e.g. 'work' or 'home'.", { canonicalValues: ['work', 'home', 'other'] }),
        attribute('primary', 'boolean', "A Boolean value indicating the 'primary' or preferred address."),
      ],
      { multiValued: true },
    ),
    readOnly(
      complex(
        'groups',
        'A list of groups to which the user belongs, either through direct membership, through nested groups, or dynamically calculated.',
        [
          attribute('value', 'string', "The identifier of the User's group."),
          attribute('$ref', 'reference', "The URI of the corresponding 'Group' resource to which the user belongs.", { referenceTypes: ['User', 'Group'] }),
          attribute('display', 'string', 'A human-readable name, primarily used for display purposes.'),
          attribute('type', 'string', "A label indicating the attribute's function, e.g. 'direct' or 'indirect'.", { canonicalValues: ['direct', 'indirect'] }),
        ],
        { multiValued: true },
      ),
    ),
    multiValued('entitlements', 'A list of entitlements for the User that represent a thing the User has.', attribute('value', 'string', 'The value of an entitlement.'), []),
    multiValued('roles', 'A list of roles for the User that collectively represent who the User is, e.g. \'Student\', \'Faculty\'.', attribute('value', 'string', 'The value of a role.'), []),
    multiValued('x509Certificates', 'A list of certificates issued to the User.', attribute('value', 'binary', 'The value of an X.509 certificate (DER, base64).'), []),
  ],
};

export const ENTERPRISE_USER_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMA.enterpriseUser,
  name: 'EnterpriseUser',
  description: 'Enterprise User',
  attributes: [
    attribute('employeeNumber', 'string', 'Numeric or alphanumeric identifier assigned to a person, typically based on order of hire or association with an organization.'),
    attribute('costCenter', 'string', 'Identifies the name of a cost center.'),
    attribute('organization', 'string', 'Identifies the name of an organization.'),
    attribute('division', 'string', 'Identifies the name of a division.'),
    attribute('department', 'string', 'Identifies the name of a department.'),
    complex('manager', "The User's manager.", [
      attribute('value', 'string', 'The id of the SCIM resource representing the User\'s manager.'),
      attribute('$ref', 'reference', 'The URI of the SCIM resource representing the User\'s manager.', { referenceTypes: ['User'] }),
      attribute('displayName', 'string', "The displayName of the User's manager.", { mutability: 'readOnly' }),
    ]),
  ],
};

export const CORE_GROUP_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMA.group,
  name: 'Group',
  description: 'Group: a department of the directory',
  attributes: [
    attribute('displayName', 'string', "A human-readable name for the Group: the department's name, unique among its siblings ignoring case.", { required: true }),
    complex(
      'members',
      'The direct members of the Group (users).',
      [
        attribute('value', 'string', 'Identifier of the member of this Group.', { mutability: 'immutable' }),
        attribute('$ref', 'reference', 'The URI corresponding to a SCIM resource that is a member of this Group.', { mutability: 'immutable', referenceTypes: ['User', 'Group'] }),
        attribute('type', 'string', "A label indicating the type of resource, e.g. 'User' or 'Group'.", { mutability: 'immutable', canonicalValues: ['User', 'Group'] }),
        attribute('display', 'string', 'A human-readable name for the member.', { mutability: 'readOnly' }),
      ],
      { multiValued: true },
    ),
  ],
};

export const WORKSPACE_GROUP_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMA.workspaceGroup,
  name: 'WorkspaceGroup',
  description: "The Group's place in the department tree",
  attributes: [
    attribute(
      'parentId',
      'string',
      'The id of the Group (department) this Group sits under. Absent or null: a top-level department. Changing it moves the department with its whole subtree.',
    ),
  ],
};

export const SCIM_SCHEMAS: readonly ScimSchemaDefinition[] = [CORE_USER_SCHEMA, ENTERPRISE_USER_SCHEMA, CORE_GROUP_SCHEMA, WORKSPACE_GROUP_SCHEMA];

export const USER_RESOURCE_TYPE: ScimResourceTypeDefinition = {
  id: 'User',
  name: 'User',
  endpoint: '/Users',
  description: 'User Account',
  schema: CORE_USER_SCHEMA,
  schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
};

export const GROUP_RESOURCE_TYPE: ScimResourceTypeDefinition = {
  id: 'Group',
  name: 'Group',
  endpoint: '/Groups',
  description: 'Group: a department of the directory',
  schema: CORE_GROUP_SCHEMA,
  schemaExtensions: [{ schema: WORKSPACE_GROUP_SCHEMA, required: false }],
};

export const SCIM_RESOURCE_TYPES: readonly ScimResourceTypeDefinition[] = [USER_RESOURCE_TYPE, GROUP_RESOURCE_TYPE];

const SERVICE_PROVIDER_CONFIG = {
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: SCIM_MAX_PAGE_SIZE },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer API key',
      description: "An API key of the organization with the scope admin.v1.scim.provision, sent as 'Authorization: Bearer <key>'.",
      specUri: 'https://www.rfc-editor.org/info/rfc6750',
      primary: true,
    },
  ],
};

/** `meta` of a discovery document: where it is served, under `scimBaseUrl` (e.g. https://api.example.com/scim/v2). */
const discoveryMeta = (resourceType: string, location: string) => ({ resourceType, location });

export function schemaDocument(schema: ScimSchemaDefinition, scimBaseUrl: string) {
  return { schemas: [SCIM_SCHEMA.schema], ...schema, meta: discoveryMeta('Schema', `${scimBaseUrl}/Schemas/${schema.id}`) };
}

export function resourceTypeDocument(resourceType: ScimResourceTypeDefinition, scimBaseUrl: string) {
  return {
    schemas: [SCIM_SCHEMA.resourceType],
    id: resourceType.id,
    name: resourceType.name,
    endpoint: resourceType.endpoint,
    description: resourceType.description,
    schema: resourceType.schema.id,
    schemaExtensions: resourceType.schemaExtensions.map(({ schema, required }) => ({ schema: schema.id, required })),
    meta: discoveryMeta('ResourceType', `${scimBaseUrl}/ResourceTypes/${resourceType.id}`),
  };
}

export function serviceProviderConfigDocument(scimBaseUrl: string) {
  return { schemas: [SCIM_SCHEMA.serviceProviderConfig], ...SERVICE_PROVIDER_CONFIG, meta: discoveryMeta('ServiceProviderConfig', `${scimBaseUrl}/ServiceProviderConfig`) };
}

export type ScimReturned = ScimAttributeDefinition['returned'];

/** The attributes every resource has (RFC 7643 §3.1), in no schema's list; `schemas` is no attribute but always there. */
const COMMON_ATTRIBUTES: readonly [string, ScimReturned][] = [
  ['schemas', 'always'],
  ['id', 'always'],
  ['externalId', 'default'],
  ['meta', 'default'],
  ...['resourceType', 'created', 'lastModified', 'location', 'version'].map((name): [string, ScimReturned] => [`meta.${name}`, 'default']),
];

/**
 * Every attribute path a resource of `resourceType` may hold, lower-cased, with when it is
 * returned: the common ones, the core schema's (`username`, `name.givenname`), each extension's
 * URN and its attributes under it (`urn:…:enterprise:2.0:user:manager.value`). What a client
 * writes outside it is ignored, and nothing outside it is returned.
 */
export function advertisedAttributes(resourceType: ScimResourceTypeDefinition): ReadonlyMap<string, ScimReturned> {
  const advertised = new Map(COMMON_ATTRIBUTES.map(([name, returned]) => [name.toLowerCase(), returned]));
  const add = (prefix: string, attributes: ScimAttributeDefinition[]) => {
    for (const { name, returned, subAttributes } of attributes) {
      advertised.set(`${prefix}${name}`.toLowerCase(), returned);
      for (const sub of subAttributes ?? []) advertised.set(`${prefix}${name}.${sub.name}`.toLowerCase(), sub.returned);
    }
  };
  add('', resourceType.schema.attributes);
  for (const { schema } of resourceType.schemaExtensions) {
    advertised.set(schema.id.toLowerCase(), 'default');
    add(`${schema.id}:`, schema.attributes);
  }
  return advertised;
}
