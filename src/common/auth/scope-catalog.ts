/**
 * The scope catalog: every scope the API checks, each defined by the module whose operations need
 * it (`<module>.scopes.ts`), with what it grants. A scope grants exactly what it says: read,
 * manage and execute scopes do not include each other (docs/api-conventions.md).
 */
export interface ScopeDefinition {
  name: string;
  grants: string;
}

/**
 * `admin.v1.<area>.<action>` or, for a sub-resource with scopes of its own, `admin.v1.<area>.<sub-resource>.<action>`
 * (docs/api-conventions.md, "Scope names"): kebab-case segments, action read, manage or execute.
 */
const SCOPE_NAME = /^admin\.v1\.[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)?\.(read|manage|execute)$/;
const catalog = new Map<string, ScopeDefinition>();

/** Adds a scope to the catalog and returns its name; a module calls it once per scope it checks. */
export function defineScope(name: string, grants: string): string {
  if (!SCOPE_NAME.test(name)) throw new Error(`Scope "${name}" is not of the form admin.v1.<area>[.<sub-resource>].<read|manage|execute> (kebab-case segments)`);
  const existing = catalog.get(name);
  if (existing && existing.grants !== grants) throw new Error(`Scope ${name} is defined twice`);
  catalog.set(name, { name, grants });
  return name;
}

/** Every defined scope, by name. Filled as the modules load: import the application module first. */
export function scopeCatalog(): ScopeDefinition[] {
  return [...catalog.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function allScopes(): string[] {
  return scopeCatalog().map((scope) => scope.name);
}

export function isKnownScope(name: string): boolean {
  return catalog.has(name);
}
