import { parsePatchPath, type PatchPath } from './filter-parser';
import { badScimRequest } from './scim-error';

export const SCIM_PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export type PatchOperationName = 'add' | 'replace' | 'remove';

export interface PatchOperation {
  /** Lower-cased: Entra sends `Replace`, `Add`. */
  op: PatchOperationName;
  /** The path as sent, and as parsed; both absent for an operation on the resource itself. */
  path?: string;
  target?: PatchPath;
  /** Present for add and replace; remove may carry one too (Entra's members to remove). */
  value?: unknown;
}

const OPERATION_NAMES: ReadonlySet<string> = new Set<PatchOperationName>(['add', 'replace', 'remove']);

/**
 * The operations of a PatchOp body (RFC 7644 §3.5.2), or 400: a body that is no PatchOp message,
 * has no operations or an unknown op (invalidSyntax), a path that does not parse (invalidPath), a
 * remove without a path (noTarget). Member names are matched in any case, as RFC 7643 §2.1 has
 * attribute names.
 */
export function readPatchOperations(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw badScimRequest('invalidSyntax', 'The body must be a PatchOp message (a JSON object).');
  const schemas = member(body, 'schemas', 'The body');
  if (!Array.isArray(schemas) || !schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === SCIM_PATCH_OP_SCHEMA.toLowerCase())) {
    throw badScimRequest('invalidSyntax', `schemas must list ${SCIM_PATCH_OP_SCHEMA}.`);
  }
  const operations = member(body, 'Operations', 'The body');
  if (!Array.isArray(operations) || operations.length === 0) throw badScimRequest('invalidSyntax', 'Operations must be a non-empty array.');
  return operations.map((operation, index) => readOperation(operation, `Operations[${index}]`));
}

function readOperation(operation: unknown, name: string): PatchOperation {
  if (!isObject(operation)) throw badScimRequest('invalidSyntax', `${name} must be an object.`);
  const op = member(operation, 'op', name);
  if (typeof op !== 'string' || !OPERATION_NAMES.has(op.toLowerCase())) throw badScimRequest('invalidSyntax', `${name}.op must be add, replace or remove.`);
  const opName = op.toLowerCase() as PatchOperationName;
  const path = member(operation, 'path', name);
  const value = member(operation, 'value', name);
  if (path !== undefined && typeof path !== 'string') throw badScimRequest('invalidPath', `${name}.path must be a string.`);
  if (path === undefined && opName === 'remove') throw badScimRequest('noTarget', `${name} removes without a path: name what to remove.`);
  if (opName !== 'remove' && value === undefined) throw badScimRequest('invalidSyntax', `${name}.value is required for ${opName}.`);
  // Without a path the value is the set of attributes to change (Okta's deactivation: {"active": false}).
  if (path === undefined && !isObject(value)) throw badScimRequest('invalidSyntax', `${name}.value must be an object of attributes when there is no path.`);
  return {
    op: opName,
    ...(path === undefined ? {} : { path, target: parsePatchPath(path) }),
    ...(value === undefined ? {} : { value }),
  };
}

/** A boolean as the providers send it: true, false, or the strings "True" and "False" in any case (Entra). */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && (value.toLowerCase() === 'true' || value.toLowerCase() === 'false')) return value.toLowerCase() === 'true';
  throw badScimRequest('invalidValue', `${attribute} must be true or false, not ${JSON.stringify(value) ?? 'undefined'}.`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The member `name` of `object` in any case; two spellings of one name are ambiguous. */
function member(object: Record<string, unknown>, name: string, owner: string): unknown {
  const keys = Object.keys(object).filter((key) => key.toLowerCase() === name.toLowerCase());
  if (keys.length > 1) throw badScimRequest('invalidSyntax', `${owner} has ${keys.join(' and ')}: send ${name} once.`);
  return keys.length === 0 ? undefined : object[keys[0]];
}
