import { badScimRequest } from './protocol/scim-error';
import { SCIM_SCHEMA } from './protocol/schemas';
import { isScimObject, type ScimObject } from './scim-group-values';

/**
 * `attributes` or `excludedAttributes` (RFC 7644 §3.9) of a Groups request, as lower-case paths
 * without the core schema's URN: `displayname`, `members`, `members.value`, the workspace
 * extension's `urn:…:group` or `urn:…:group:parentid`.
 */
export type GroupSelection = { kind: 'all' } | { kind: 'only' | 'except'; paths: ReadonlySet<string> };

const CORE_PREFIX = `${SCIM_SCHEMA.group.toLowerCase()}:`;
/** Returned whatever the selection (RFC 7643: `id` is returned always; `schemas` and `meta` say what the resource is). */
const ALWAYS = new Set(['id', 'schemas', 'meta']);

export function readGroupSelection(query: { attributes?: unknown; excludedAttributes?: unknown }): GroupSelection {
  const attributes = parameter('attributes', query.attributes);
  const excluded = parameter('excludedAttributes', query.excludedAttributes);
  // RFC 7644 §3.9 lets a client send one of the two.
  if (attributes !== undefined && excluded !== undefined) throw badScimRequest('invalidSyntax', 'Send attributes or excludedAttributes, not both.');
  if (attributes !== undefined) return { kind: 'only', paths: attributes };
  if (excluded !== undefined) return { kind: 'except', paths: excluded };
  return { kind: 'all' };
}

function parameter(name: string, value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badScimRequest('invalidSyntax', `${name} must be given once, as a comma-separated list of attribute names.`);
  const paths = value
    .split(',')
    .map((path) => path.trim().toLowerCase())
    .filter((path) => path !== '')
    .map((path) => (path.startsWith(CORE_PREFIX) ? path.slice(CORE_PREFIX.length) : path));
  return new Set(paths);
}

/** Whether the members must be read: `members` is neither excluded whole nor left out of an `attributes` list. */
export function selectsMembers(selection: GroupSelection): boolean {
  if (selection.kind === 'all') return true;
  const named = [...selection.paths].some((path) => path === 'members' || path.startsWith('members.'));
  return selection.kind === 'only' ? named : !selection.paths.has('members');
}

/** The resource with only the selected attributes (sub-attributes too: `members.value`); id, schemas and meta always. */
export function selectGroupAttributes(resource: ScimObject, selection: GroupSelection): ScimObject {
  if (selection.kind === 'all') return resource;
  const selected: ScimObject = {};
  for (const [name, value] of Object.entries(resource)) {
    const key = name.toLowerCase();
    if (ALWAYS.has(key)) selected[name] = value;
    else {
      const kept = selection.kind === 'only' ? only(key, value, selection.paths) : except(key, value, selection.paths);
      if (kept !== undefined) selected[name] = kept;
    }
  }
  return selected;
}

function subPaths(key: string, paths: ReadonlySet<string>): string[] {
  return [...paths].filter((path) => path.startsWith(`${key}.`) || path.startsWith(`${key}:`)).map((path) => path.slice(key.length + 1));
}

function only(key: string, value: unknown, paths: ReadonlySet<string>): unknown {
  if (paths.has(key)) return value;
  const subs = subPaths(key, paths);
  if (subs.length === 0) return undefined;
  return mapElements(value, (element) => Object.fromEntries(Object.entries(element).filter(([name]) => subs.includes(name.toLowerCase()))));
}

function except(key: string, value: unknown, paths: ReadonlySet<string>): unknown {
  if (paths.has(key)) return undefined;
  const subs = subPaths(key, paths);
  if (subs.length === 0) return value;
  return mapElements(value, (element) => Object.fromEntries(Object.entries(element).filter(([name]) => !subs.includes(name.toLowerCase()))));
}

/** A complex attribute's object, or each object of a multi-valued one, through `change`. */
function mapElements(value: unknown, change: (element: ScimObject) => ScimObject): unknown {
  if (Array.isArray(value)) return value.map((element) => (isScimObject(element) ? change(element) : element));
  return isScimObject(value) ? change(value) : value;
}
