import { scimBoolean } from './protocol/patch-ops';
import { badScimRequest } from './protocol/scim-error';
import { CORE_USER_SCHEMA, ENTERPRISE_USER_SCHEMA, SCIM_SCHEMA, type ScimAttributeDefinition } from './protocol/schemas';

export type ScimObject = Record<string, unknown>;

export const isScimObject = (value: unknown): value is ScimObject => typeof value === 'object' && value !== null && !Array.isArray(value);

// The attributes common to every resource (RFC 7643 §3.1), which no schema lists: a client writes
// externalId like any User attribute; id and meta are the service's.
const common = (name: string, type: ScimAttributeDefinition['type'], mutability: ScimAttributeDefinition['mutability']): ScimAttributeDefinition => ({
  name,
  type,
  multiValued: false,
  description: '',
  required: false,
  caseExact: true,
  mutability,
  returned: 'default',
  uniqueness: 'none',
});
const COMMON_ATTRIBUTES = [common('id', 'string', 'readOnly'), common('externalId', 'string', 'readWrite'), common('meta', 'complex', 'readOnly')];

/** RFC 7643 §2.1: attribute names are case-insensitive; a key in any case finds its canonical attribute. */
export const byLowerName = (attributes: readonly ScimAttributeDefinition[]) => new Map(attributes.map((attribute) => [attribute.name.toLowerCase(), attribute]));
const USER_BY_NAME = byLowerName([...COMMON_ATTRIBUTES, ...CORE_USER_SCHEMA.attributes]);
const ENTERPRISE_BY_NAME = byLowerName(ENTERPRISE_USER_SCHEMA.attributes);

/** Whether a client may write the attribute: readOnly ones are the service's (groups, manager.displayName), writeOnly ones are never returned, so never kept. */
export const isWritable = (attribute: ScimAttributeDefinition) => attribute.mutability === 'readWrite' || attribute.mutability === 'immutable';

/**
 * The attribute a path names (`uri` absent: the core schema), with the prefix its canonical path
 * takes (the extension's URN and a colon; nothing for the core schema); undefined when no
 * advertised schema has it.
 */
export function userAttribute(uri: string | undefined, name: string): { prefix: string; attribute: ScimAttributeDefinition } | undefined {
  const schema = (uri ?? SCIM_SCHEMA.user).toLowerCase();
  if (schema === SCIM_SCHEMA.user.toLowerCase()) {
    const attribute = USER_BY_NAME.get(name.toLowerCase());
    return attribute && { prefix: '', attribute };
  }
  if (schema !== SCIM_SCHEMA.enterpriseUser.toLowerCase()) return undefined;
  const attribute = ENTERPRISE_BY_NAME.get(name.toLowerCase());
  return attribute && { prefix: `${SCIM_SCHEMA.enterpriseUser}:`, attribute };
}

/**
 * A User resource as a client sent it (POST, PUT, or the result of a PATCH), in canonical form: keys
 * in their schema's spelling, the extension under its URN, booleans sent as "True"/"False" as
 * booleans. Dropped: attributes in no advertised schema (password among them), readOnly ones (id,
 * meta, groups: the service writes them) and `schemas` (written from what the user holds). A value
 * of the wrong type is 400 invalidValue naming the attribute; null is an unassigned attribute.
 */
export function canonicalUser(resource: unknown): ScimObject {
  if (!isScimObject(resource)) throw badScimRequest('invalidSyntax', 'The request body must be a JSON object: a SCIM User resource.');
  const user: ScimObject = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key.toLowerCase() === SCIM_SCHEMA.enterpriseUser.toLowerCase()) {
      if (value === null) continue;
      if (!isScimObject(value)) throw invalidValue(SCIM_SCHEMA.enterpriseUser, 'must be an object of the enterprise User extension\'s attributes');
      const extension = canonicalAttributes(value, ENTERPRISE_BY_NAME, `${SCIM_SCHEMA.enterpriseUser}:`);
      if (Object.keys(extension).length > 0) user[SCIM_SCHEMA.enterpriseUser] = extension;
      continue;
    }
    Object.assign(user, canonicalAttributes({ [key]: value }, USER_BY_NAME, ''));
  }
  return user;
}

function canonicalAttributes(values: ScimObject, attributes: ReadonlyMap<string, ScimAttributeDefinition>, prefix: string): ScimObject {
  const canonical: ScimObject = {};
  for (const [key, value] of Object.entries(values)) {
    const attribute = attributes.get(key.toLowerCase());
    if (attribute === undefined || !isWritable(attribute) || value === null) continue;
    canonical[attribute.name] = readValue(value, attribute, `${prefix}${attribute.name}`);
  }
  return canonical;
}

function readValue(value: unknown, attribute: ScimAttributeDefinition, path: string): unknown {
  if (!attribute.multiValued) return readSingleValue(value, attribute, path);
  if (!Array.isArray(value)) throw invalidValue(path, 'must be an array');
  return value.filter((element) => element !== null).map((element, index) => readSingleValue(element, attribute, `${path}[${index}]`));
}

function readSingleValue(value: unknown, attribute: ScimAttributeDefinition, path: string): unknown {
  switch (attribute.type) {
    case 'complex':
      if (!isScimObject(value)) throw invalidValue(path, 'must be an object');
      return canonicalAttributes(value, byLowerName(attribute.subAttributes ?? []), `${path}.`);
    case 'boolean':
      return scimBoolean(value, path);
    case 'integer':
    case 'decimal':
      if (typeof value !== 'number') throw invalidValue(path, 'must be a number');
      return value;
    default:
      if (typeof value !== 'string') throw invalidValue(path, 'must be a string');
      return value;
  }
}

export const invalidValue = (path: string, problem: string) => badScimRequest('invalidValue', `${path}: ${problem}.`);
