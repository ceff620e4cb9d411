import { badScimRequest } from './protocol/scim-error';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

type AttributeType = 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime' | 'integer' | 'decimal' | 'binary';

/** What the Users resource needs to know of an attribute of its schemas to read a client's JSON (RFC 7643 §2.2, §7). */
export interface AttributeShape {
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued?: boolean;
  readonly subAttributes?: readonly AttributeShape[];
  /** readOnly attributes are the service's to write (id, meta, groups); writeOnly ones are never returned, so never kept (password). */
  readonly mutability?: 'readOnly' | 'writeOnly';
}

const text = (name: string): AttributeShape => ({ name, type: 'string' });
const multiValued = (name: string, subAttributes: readonly AttributeShape[], mutability?: 'readOnly'): AttributeShape => ({
  name,
  type: 'complex',
  multiValued: true,
  subAttributes,
  ...(mutability ? { mutability } : {}),
});
const PLURAL = [text('value'), text('display'), text('type'), { name: 'primary', type: 'boolean' }] as const satisfies AttributeShape[];

/** The core User schema's attributes (RFC 7643 §4.1). */
export const USER_ATTRIBUTES: readonly AttributeShape[] = [
  { name: 'id', type: 'string', mutability: 'readOnly' },
  text('externalId'),
  { name: 'meta', type: 'complex', mutability: 'readOnly' },
  text('userName'),
  {
    name: 'name',
    type: 'complex',
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map(text),
  },
  text('displayName'),
  text('nickName'),
  { name: 'profileUrl', type: 'reference' },
  text('title'),
  text('userType'),
  text('preferredLanguage'),
  text('locale'),
  text('timezone'),
  { name: 'active', type: 'boolean' },
  { name: 'password', type: 'string', mutability: 'writeOnly' },
  multiValued('emails', PLURAL),
  multiValued('phoneNumbers', PLURAL),
  multiValued('ims', PLURAL),
  multiValued('photos', PLURAL),
  multiValued('addresses', [
    ...['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map(text),
    { name: 'primary', type: 'boolean' },
  ]),
  multiValued('groups', [text('value'), { name: '$ref', type: 'reference' }, text('display'), text('type')], 'readOnly'),
  multiValued('entitlements', PLURAL),
  multiValued('roles', PLURAL),
  multiValued('x509Certificates', [{ name: 'value', type: 'binary' }, text('display'), text('type'), { name: 'primary', type: 'boolean' }]),
];

/** The enterprise User extension's attributes (RFC 7643 §4.3). */
export const ENTERPRISE_USER_ATTRIBUTES: readonly AttributeShape[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map(text),
  { name: 'manager', type: 'complex', subAttributes: [text('value'), { name: '$ref', type: 'reference' }, text('displayName')] },
];

/** RFC 7643 §2.1: attribute names are case-insensitive; a key in any case finds its canonical attribute. */
export const byLowerName = (attributes: readonly AttributeShape[]) => new Map(attributes.map((attribute) => [attribute.name.toLowerCase(), attribute]));
const USER_BY_NAME = byLowerName(USER_ATTRIBUTES);
const ENTERPRISE_BY_NAME = byLowerName(ENTERPRISE_USER_ATTRIBUTES);

/**
 * The attribute a path names (`uri` absent: the core schema), with the prefix its canonical path
 * takes (the extension's URN and a colon; nothing for the core schema); undefined when no
 * advertised schema has it.
 */
export function userAttribute(uri: string | undefined, name: string): { prefix: string; attribute: AttributeShape } | undefined {
  const schema = (uri ?? USER_SCHEMA).toLowerCase();
  if (schema === USER_SCHEMA.toLowerCase()) {
    const attribute = USER_BY_NAME.get(name.toLowerCase());
    return attribute && { prefix: '', attribute };
  }
  if (schema !== ENTERPRISE_USER_SCHEMA.toLowerCase()) return undefined;
  const attribute = ENTERPRISE_BY_NAME.get(name.toLowerCase());
  return attribute && { prefix: `${ENTERPRISE_USER_SCHEMA}:`, attribute };
}

export type ScimObject = Record<string, unknown>;

export const isScimObject = (value: unknown): value is ScimObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A User resource as a client sent it (POST, PUT, or the result of a PATCH), in canonical form: keys
 * in their schema's spelling, the extension under its URN, booleans sent as "True"/"False" as
 * booleans. Dropped: attributes in no advertised schema, readOnly ones (id, meta, groups: the
 * service writes them) and password (writeOnly: never returned, so never stored). A value of the
 * wrong type is 400 invalidValue naming the attribute; null is an unassigned attribute.
 */
export function canonicalUser(resource: unknown): ScimObject {
  if (!isScimObject(resource)) throw badScimRequest('invalidSyntax', 'The request body must be a JSON object: a SCIM User resource.');
  const user: ScimObject = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase()) {
      if (value === null) continue;
      if (!isScimObject(value)) throw invalidValue(ENTERPRISE_USER_SCHEMA, 'must be an object of the enterprise User extension\'s attributes');
      const extension = canonicalAttributes(value, ENTERPRISE_BY_NAME, `${ENTERPRISE_USER_SCHEMA}:`);
      if (Object.keys(extension).length > 0) user[ENTERPRISE_USER_SCHEMA] = extension;
      continue;
    }
    Object.assign(user, canonicalAttributes({ [key]: value }, USER_BY_NAME, ''));
  }
  return user;
}

function canonicalAttributes(values: ScimObject, attributes: ReadonlyMap<string, AttributeShape>, prefix: string): ScimObject {
  const canonical: ScimObject = {};
  for (const [key, value] of Object.entries(values)) {
    const attribute = attributes.get(key.toLowerCase());
    if (attribute === undefined || attribute.mutability !== undefined || value === null) continue;
    const read = readValue(value, attribute, `${prefix}${attribute.name}`);
    if (read !== undefined) canonical[attribute.name] = read;
  }
  return canonical;
}

function readValue(value: unknown, attribute: AttributeShape, path: string): unknown {
  if (attribute.multiValued) {
    if (!Array.isArray(value)) throw invalidValue(path, 'must be an array');
    return value.filter((element) => element !== null).map((element, index) => readSingleValue(element, attribute, `${path}[${index}]`));
  }
  return readSingleValue(value, attribute, path);
}

function readSingleValue(value: unknown, attribute: AttributeShape, path: string): unknown {
  switch (attribute.type) {
    case 'complex': {
      if (!isScimObject(value)) throw invalidValue(path, 'must be an object');
      return attribute.subAttributes ? canonicalAttributes(value, byLowerName(attribute.subAttributes), `${path}.`) : value;
    }
    case 'boolean': {
      const flag = scimBoolean(value);
      if (flag === undefined) throw invalidValue(path, 'must be a boolean');
      return flag;
    }
    case 'integer':
    case 'decimal':
      if (typeof value !== 'number') throw invalidValue(path, 'must be a number');
      return value;
    default:
      if (typeof value !== 'string') throw invalidValue(path, 'must be a string');
      return value;
  }
}

/** A boolean, or the strings "True" and "False" in any case, which Microsoft Entra ID sends for booleans. */
export function scimBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

export const invalidValue = (path: string, problem: string) => badScimRequest('invalidValue', `${path}: ${problem}.`);
