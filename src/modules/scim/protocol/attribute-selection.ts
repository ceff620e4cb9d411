import { readAttributePath } from './filter-parser';
import { advertisedAttributes, type ScimResourceTypeDefinition, type ScimReturned } from './schemas';

/** The `attributes` and `excludedAttributes` parameters of a request (RFC 7644 §3.9), as sent. */
export interface AttributeSelection {
  attributes?: string;
  excludedAttributes?: string;
}

type Resource = Record<string, unknown>;

/** Lower-cased names down a resource: `true` selects the whole attribute. */
type Selected = Map<string, Selected | true>;

interface Projection {
  coreSchema: string;
  /** The extensions' URNs, lower-cased: keys of the resource whose members are attributes. */
  extensions: ReadonlySet<string>;
  returned: ReadonlyMap<string, ScimReturned>;
}

const projections = new WeakMap<ScimResourceTypeDefinition, Projection>();

function projectionOf(resourceType: ScimResourceTypeDefinition): Projection {
  let projection = projections.get(resourceType);
  if (projection === undefined) {
    projection = {
      coreSchema: resourceType.schema.id.toLowerCase(),
      extensions: new Set(resourceType.schemaExtensions.map(({ schema }) => schema.id.toLowerCase())),
      returned: advertisedAttributes(resourceType),
    };
    projections.set(resourceType, projection);
  }
  return projection;
}

/**
 * The resource as a response shows it (RFC 7644 §3.9): with `attributes`, those and the ones
 * always returned (`id`, `schemas`); otherwise all but `excludedAttributes` (never the ones always
 * returned). `attributes` wins when both are sent. Names are read in any case, qualified by their
 * schema's URN or not (core attributes only), `name.givenName` selects a sub-attribute, an
 * extension's URN its whole object. Names the resource type does not advertise select nothing and
 * are no error: RFC 7644 asks for none, and providers ask for attributes a service may lack.
 * Attributes returned "never", or in no advertised schema, are never in the result.
 */
export function selectAttributes(resource: Resource, selection: AttributeSelection, resourceType: ScimResourceTypeDefinition): Resource {
  const projection = projectionOf(resourceType);
  const attributes = selectedNames(selection.attributes, projection);
  if (attributes !== undefined) return pick(resource, '', attributes, projection);
  return omit(resource, '', selectedNames(selection.excludedAttributes, projection), projection);
}

/** The tree of names a parameter lists, or undefined when it lists none. */
function selectedNames(parameter: string | undefined, projection: Projection): Selected | undefined {
  const names = (parameter ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return undefined;
  const selected: Selected = new Map();
  for (const name of names) {
    const segments = segmentsOf(name, projection);
    if (segments !== undefined) select(selected, segments);
  }
  return selected;
}

/** `name.givenName` → [name, givenname]; `urn:…:enterprise:2.0:User:manager.value` → [urn:…:user, manager, value]. */
function segmentsOf(name: string, projection: Projection): string[] | undefined {
  const lower = name.toLowerCase();
  if (projection.extensions.has(lower)) return [lower];
  const path = readAttributePath(lower);
  if (path === undefined) return undefined;
  const attribute = path.subAttribute === undefined ? [path.name] : [path.name, path.subAttribute];
  if (path.uri === undefined || path.uri === projection.coreSchema) return attribute;
  return projection.extensions.has(path.uri) ? [path.uri, ...attribute] : undefined;
}

function select(selected: Selected, [first, ...rest]: string[]): void {
  const current = selected.get(first);
  if (current === true) return;
  if (rest.length === 0) {
    selected.set(first, true);
    return;
  }
  const below = current ?? new Map<string, Selected | true>();
  selected.set(first, below);
  select(below, rest);
}

/** The path of `key` under `parent` as advertisedAttributes writes it: `.` below an attribute, `:` below an extension's URN. */
function pathOf(parent: string, key: string, projection: Projection): string {
  if (parent === '') return key;
  return `${parent}${projection.extensions.has(parent) ? ':' : '.'}${key}`;
}

function pick(object: Resource, parent: string, selected: Selected | undefined, projection: Projection): Resource {
  const result: Resource = {};
  for (const [key, value] of Object.entries(object)) {
    const path = pathOf(parent, key.toLowerCase(), projection);
    const returned = projection.returned.get(path) ?? 'never';
    const choice = selected?.get(key.toLowerCase());
    if (returned === 'never') continue;
    if (returned === 'always' || choice === true) {
      result[key] = whole(value, path, projection);
      continue;
    }
    // Not chosen as a whole: its chosen (or always returned) sub-attributes, if any.
    const part = eachObject(value, (member) => pick(member, path, choice, projection));
    if (part !== undefined) result[key] = part;
  }
  return result;
}

function omit(object: Resource, parent: string, excluded: Selected | undefined, projection: Projection): Resource {
  const result: Resource = {};
  for (const [key, value] of Object.entries(object)) {
    const path = pathOf(parent, key.toLowerCase(), projection);
    const returned = projection.returned.get(path) ?? 'never';
    const choice = excluded?.get(key.toLowerCase());
    if (returned === 'never' || returned === 'request') continue;
    if (returned === 'always' || choice === undefined) {
      result[key] = whole(value, path, projection);
    } else if (choice !== true) {
      const part = eachObject(value, (member) => omit(member, path, choice, projection));
      if (part !== undefined) result[key] = part;
    }
  }
  return result;
}

/** The value with what is never returned taken out at every level. */
function whole(value: unknown, path: string, projection: Projection): unknown {
  if (Array.isArray(value)) return value.map((element) => whole(element, path, projection));
  return isObject(value) ? omit(value, path, undefined, projection) : value;
}

/** `project` applied to a complex value, or to each complex element of a multi-valued one; undefined when nothing is left. */
function eachObject(value: unknown, project: (member: Resource) => Resource): unknown {
  const projected = (member: unknown) => {
    if (!isObject(member)) return undefined;
    const result = project(member);
    return Object.keys(result).length === 0 ? undefined : result;
  };
  if (!Array.isArray(value)) return projected(value);
  const elements = value.map(projected).filter((element) => element !== undefined);
  return elements.length === 0 ? undefined : elements;
}

function isObject(value: unknown): value is Resource {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
