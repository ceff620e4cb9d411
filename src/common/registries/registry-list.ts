import type { Registries } from './registries';

/** The lists of the registries that a field's allowed values can be. */
const LISTS = {
  audit_actions: (registries: Registries) => registries.auditActions.actions,
  audit_resource_types: (registries: Registries) => registries.auditActions.resourceTypes,
} satisfies Record<string, (registries: Registries) => readonly string[]>;

export type RegistryListName = keyof typeof LISTS;

/**
 * A reference to a list of the application's registries, with fixed values before it: what a DTO
 * field names instead of values its decorators cannot know yet (they run when the class is
 * defined; the registries exist once AppModule has collected them). It is plain data, resolved
 * against the registries of the application at hand: by BodyValidationPipe when it first reads a
 * class's rules, and by buildOpenApiDocument in the document (see registryEnum).
 */
export interface RegistryList {
  readonly list: RegistryListName;
  readonly before: readonly string[];
}

export function registryList(list: RegistryListName, before: readonly string[] = []): RegistryList {
  return Object.freeze({ list, before: Object.freeze([...before]) });
}

export function isRegistryList(value: unknown): value is RegistryList {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as RegistryList).list === 'string' && (value as RegistryList).list in LISTS;
}

export function registryListValues(list: RegistryList, registries: Registries): readonly string[] {
  return Object.freeze([...list.before, ...LISTS[list.list](registries)]);
}

const PLACEHOLDER_PREFIX = 'registry-list:';

/**
 * The `enum` of a schema whose values are a registry list: one placeholder value naming the list,
 * which withRegistryEnums replaces with the list in the built document.
 */
export function registryEnum(list: RegistryList): string[] {
  return [`${PLACEHOLDER_PREFIX}${JSON.stringify(list)}`];
}

/**
 * The document with every `enum` that registryEnum wrote, at any depth, replaced by its list. Copies
 * what it changes and shares the rest: @nestjs/swagger builds a document from objects it keeps in
 * the decorators' metadata, which every application of the process shares.
 */
export function withRegistryEnums<Node>(node: Node, registries: Registries): Node {
  if (Array.isArray(node)) {
    const items = node.map((item: unknown) => withRegistryEnums(item, registries));
    return (items.some((item, i) => item !== node[i]) ? items : node) as Node;
  }
  if (typeof node !== 'object' || node === null) return node;
  let changed = false;
  const entries = Object.entries(node).map(([key, value]) => {
    const resolved = key === 'enum' ? resolvedEnum(value, registries) : withRegistryEnums(value, registries);
    changed ||= resolved !== value;
    return [key, resolved];
  });
  return changed ? (Object.fromEntries(entries) as Node) : node;
}

function resolvedEnum(values: unknown, registries: Registries): unknown {
  if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== 'string' || !values[0].startsWith(PLACEHOLDER_PREFIX)) return values;
  const list: unknown = JSON.parse(values[0].slice(PLACEHOLDER_PREFIX.length));
  if (!isRegistryList(list)) throw new Error(`The OpenAPI document names an unknown registry list: ${values[0]}`);
  return [...registryListValues(list, registries)];
}
