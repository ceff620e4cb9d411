import { NoPathInScimPatchOp, NoTarget, scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { parsePatchPath } from './protocol/filter-parser';
import { badScimRequest } from './protocol/scim-error';
import { byLowerName, ENTERPRISE_USER_SCHEMA, isScimObject, userAttribute, type ScimObject } from './scim-user-attributes';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

type OpName = 'add' | 'replace' | 'remove';
const OP_NAMES: ReadonlySet<string> = new Set<OpName>(['add', 'replace', 'remove']);

/**
 * A User resource with a PatchOp request (RFC 7644 §3.5.2) applied by scim-patch, which holds the
 * operations' semantics (value filters, adding to multi-valued attributes, replacing
 * sub-attributes). Before it: op names in any case (Entra sends `Replace`), paths checked by the
 * protocol's grammar (400 invalidPath) and written with their attributes' canonical names (names
 * are case-insensitive; scim-patch compares keys exactly), a path-less add or replace split into
 * one operation per attribute of its value (Okta's `{"op":"replace","value":{"active":false}}`,
 * dotted and extension-qualified keys included), operations on attributes in no advertised schema
 * dropped, on readOnly ones 400 mutability. The result still has to pass canonicalUser.
 */
export function patchedUser(resource: ScimObject, body: unknown): ScimObject {
  const operations = patchOperations(body).flatMap(expandPathless).flatMap(canonicalOperation);
  try {
    return scimPatch(resource as unknown as ScimResource, operations, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as ScimObject;
  } catch (error) {
    if (error instanceof NoTarget || error instanceof NoPathInScimPatchOp) throw badScimRequest('noTarget', error.message);
    throw badScimRequest('invalidValue', `The operations cannot be applied to the user: ${error instanceof Error ? error.message : String(error)}`);
  }
}

interface Operation {
  op: OpName;
  path?: string;
  value?: unknown;
}

function patchOperations(body: unknown): Operation[] {
  if (!isScimObject(body)) throw badScimRequest('invalidSyntax', 'The request body must be a PatchOp object.');
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase())) {
    throw badScimRequest('invalidSyntax', `schemas must list ${PATCH_OP_SCHEMA}.`);
  }
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw badScimRequest('invalidSyntax', 'Operations must be a non-empty array of operations.');
  return operations.map((operation, index) => {
    if (!isScimObject(operation)) throw badScimRequest('invalidSyntax', `Operations[${index}] must be an object.`);
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
    if (op === undefined || !OP_NAMES.has(op)) throw badScimRequest('invalidSyntax', `Operations[${index}].op must be add, replace or remove.`);
    const path = operation.path;
    if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) throw badScimRequest('invalidPath', `Operations[${index}].path must be an attribute path.`);
    if (op === 'remove') {
      if (path === undefined) throw badScimRequest('noTarget', `Operations[${index}]: remove needs a path.`);
      return { op, path };
    }
    if (!('value' in operation)) throw badScimRequest('invalidSyntax', `Operations[${index}]: ${op} needs a value.`);
    if (path === undefined && !isScimObject(operation.value)) throw badScimRequest('invalidValue', `Operations[${index}]: ${op} without a path takes an object of attributes as its value.`);
    return { op: op as OpName, ...(path === undefined ? {} : { path }), value: operation.value };
  });
}

/** A path-less add or replace as one operation per attribute of its value; the extension's object as one per attribute of it. */
function expandPathless(operation: Operation): Operation[] {
  if (operation.path !== undefined) return [operation];
  return Object.entries(operation.value as ScimObject).flatMap(([key, value]) =>
    key.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase() && isScimObject(value)
      ? Object.entries(value).map(([name, inner]) => ({ op: operation.op, path: `${ENTERPRISE_USER_SCHEMA}:${name}`, value: inner }))
      : [{ op: operation.op, path: key, value }],
  );
}

/** The operation with its path in canonical spelling; none for an attribute in no advertised schema. */
function canonicalOperation(operation: Operation): ScimPatchOperation[] {
  const text = operation.path!;
  const parsed = parsePatchPath(text);
  const found = userAttribute(parsed.path.uri, parsed.path.name);
  if (found === undefined) return [];
  const { prefix, attribute } = found;
  if (attribute.mutability === 'readOnly') throw badScimRequest('mutability', `${attribute.name} is readOnly: the service sets it.`);
  if (attribute.mutability === 'writeOnly') return [];
  const subAttributes = byLowerName(attribute.subAttributes ?? []);
  const subName = (name: string) => subAttributes.get(name.toLowerCase())?.name;
  let canonical = `${prefix}${attribute.name}`;
  if (parsed.path.subAttribute !== undefined) {
    const sub = subName(parsed.path.subAttribute);
    if (sub === undefined) return [];
    canonical += `.${sub}`;
  }
  if (parsed.filter !== undefined) canonical += text.slice(text.indexOf('['), text.lastIndexOf(']') + 1);
  if (parsed.subAttribute !== undefined) {
    const sub = subName(parsed.subAttribute);
    if (sub === undefined) return [];
    canonical += `.${sub}`;
  }
  return [{ op: operation.op, path: canonical, value: operation.value } as ScimPatchOperation];
}
