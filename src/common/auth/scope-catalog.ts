/**
 * Scopes: every scope the API checks is defined by the module whose operations need it
 * (`<module>.scopes.ts`), with what it grants, and listed in the module's `definitions`; the
 * application collects them into one ScopeCatalog (common/registries). A scope grants exactly what
 * it says: read, manage and execute scopes do not include each other (docs/api-conventions.md).
 */
export interface ScopeDefinition<Name extends string = string> {
  readonly name: Name;
  readonly grants: string;
}

/**
 * `admin.v1.<area>.<action>` or, for a sub-resource with scopes of its own, `admin.v1.<area>.<sub-resource>.<action>`
 * (docs/api-conventions.md, "Scope names"): kebab-case segments, action read, manage, execute or
 * provision (CONTRACT.md section 12 names SCIM's `admin.v1.scim.provision`: reads and changes of a protocol, one scope).
 */
const SCOPE_NAME = /^admin\.v1\.[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)?\.(read|manage|execute|provision)$/;

/** A scope and what it grants, its name checked; it is in no catalog until a module lists it. */
export function defineScope<const Name extends string>(name: Name, grants: string): ScopeDefinition<Name> {
  if (!SCOPE_NAME.test(name)) throw new Error(`Scope "${name}" is not of the form admin.v1.<area>[.<sub-resource>].<read|manage|execute|provision> (kebab-case segments)`);
  return Object.freeze({ name, grants });
}

/** The names of a module's scopes, under the same keys: what @RequireScope and API keys take. */
export function scopeNames<const Scopes extends Readonly<Record<string, ScopeDefinition>>>(scopes: Scopes): { readonly [Key in keyof Scopes]: Scopes[Key]['name'] } {
  return Object.freeze(Object.fromEntries(Object.entries(scopes).map(([key, scope]) => [key, scope.name]))) as { readonly [Key in keyof Scopes]: Scopes[Key]['name'] };
}

/** The application's scopes, sorted by name; built once by collectRegistries, frozen. */
export class ScopeCatalog {
  readonly all: readonly ScopeDefinition[];
  readonly names: readonly string[];
  private readonly byName: ReadonlySet<string>;

  constructor(scopes: readonly ScopeDefinition[]) {
    this.all = Object.freeze([...scopes].sort((a, b) => a.name.localeCompare(b.name)));
    this.names = Object.freeze(this.all.map((scope) => scope.name));
    this.byName = new Set(this.names);
    Object.freeze(this);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }
}
