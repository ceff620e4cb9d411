import { NoPathInScimPatchOp, NoTarget, scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { parsePatchPath } from './protocol/filter-parser';
import { readPatchOperations, type PatchOperation } from './protocol/patch-ops';
import { badScimRequest } from './protocol/scim-error';
import { SCIM_SCHEMA } from './protocol/schemas';
import type { ColumnChanges } from '../users/users.service';
import { byLowerName, isScimObject, isWritable, userAttribute, type ScimObject } from './scim-user-attributes';
import { columnAttribute } from './scim-user-values';

/**
 * A User resource with a PatchOp request (RFC 7644 §3.5.2) applied by scim-patch, which holds the
 * operations' semantics (value filters, adding to multi-valued attributes, replacing
 * sub-attributes). Before it: the body read by the protocol (op names in any case, paths by its
 * grammar), each path written with its attributes' canonical names (names are case-insensitive;
 * scim-patch compares keys exactly), a path-less add or replace split into one operation per
 * attribute of its value (Okta's `{"op":"replace","value":{"active":false}}`, dotted and
 * extension-qualified keys included), operations on attributes in no advertised schema dropped,
 * on readOnly ones 400 mutability. The result still has to pass canonicalUser.
 */
export function patchedUser(resource: ScimObject, body: unknown): ScimObject {
  const operations = readPatchOperations(body).flatMap(expandPathless).flatMap(canonicalOperation);
  try {
    return scimPatch(resource as unknown as ScimResource, operations, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as ScimObject;
  } catch (error) {
    if (error instanceof NoTarget || error instanceof NoPathInScimPatchOp) throw badScimRequest('noTarget', error.message);
    throw badScimRequest('invalidValue', `The operations cannot be applied to the user: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The columns a PatchOp request sets when each of its operations adds or replaces a single-valued
 * attribute that is a column of its own (displayName, active, name.givenName, …; Okta's path-less
 * `{"active": false}` and Entra's `Replace` included): the REST API's PATCH, one statement, with no
 * read of the user before it. Undefined for any other request (a remove, a multi-valued or complex
 * attribute, an extension's, a value filter, null), which patchedUser applies to the user as stored. A
 * value of the wrong type or length is 400 invalidValue, a readOnly target 400 mutability, as
 * patchedUser's result would be.
 */
export function columnPatch(body: unknown): ColumnChanges | undefined {
  const fields: Partial<Record<keyof ColumnChanges, unknown>> = {};
  for (const operation of readPatchOperations(body).flatMap(expandPathless)) {
    // null unassigns: patchedUser's rules (userName cannot be unassigned) answer it.
    if (operation.op === 'remove' || operation.value === null) return undefined;
    // A column's canonical path is its bare name (`displayName`, `name.givenName`); a value filter,
    // the extension's prefix or an attribute in no schema names none.
    const [canonical] = canonicalOperation(operation);
    const column = canonical?.path === undefined ? undefined : columnAttribute(canonical.path);
    if (column === undefined) return undefined;
    // Operations apply in order: the last value of an attribute is the one written.
    fields[column.field] = column.read(operation.value);
  }
  // Each reader answers its column's type (COLUMN_ATTRIBUTES is checked against ColumnChanges).
  return fields as ColumnChanges;
}

/** A path-less add or replace as one operation per attribute of its value; the extension's object as one per attribute of it. */
function expandPathless(operation: PatchOperation): PatchOperation[] {
  if (operation.path !== undefined) return [operation];
  return Object.entries(operation.value as ScimObject).flatMap(([key, value]) => {
    const paths =
      key.toLowerCase() === SCIM_SCHEMA.enterpriseUser.toLowerCase() && isScimObject(value)
        ? Object.entries(value).map(([name, inner]) => [`${SCIM_SCHEMA.enterpriseUser}:${name}`, inner] as const)
        : [[key, value] as const];
    return paths.map(([path, inner]) => ({ op: operation.op, path, target: parsePatchPath(path), value: inner }));
  });
}

/** The operation with its path in canonical spelling; none for an attribute in no advertised schema. */
function canonicalOperation({ op, path, target, value }: PatchOperation): ScimPatchOperation[] {
  const found = userAttribute(target!.path.uri, target!.path.name);
  if (found === undefined) return [];
  const { prefix, attribute } = found;
  if (attribute.mutability === 'readOnly') throw badScimRequest('mutability', `${attribute.name} is readOnly: the service sets it.`);
  if (!isWritable(attribute)) return [];
  const subAttributes = byLowerName(attribute.subAttributes ?? []);
  const canonicalSub = (name: string | undefined) => (name === undefined ? '' : subAttributes.get(name.toLowerCase())?.name);
  // `name.givenName`, or `emails[type eq "work"].value`: the filter is passed on as written, for scim-patch to apply.
  const pathSub = canonicalSub(target!.path.subAttribute);
  const filter = target!.filter === undefined ? '' : path!.slice(path!.indexOf('['), path!.lastIndexOf(']') + 1);
  const filteredSub = canonicalSub(target!.subAttribute);
  if (pathSub === undefined || filteredSub === undefined) return [];
  const canonical = `${prefix}${attribute.name}${pathSub && `.${pathSub}`}${filter}${filteredSub && `.${filteredSub}`}`;
  return [{ op, path: canonical, value } as ScimPatchOperation];
}
