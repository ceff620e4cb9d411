import type { DynamicModule, Type } from '@nestjs/common';
import { AuditActionCatalog, type AuditAction } from '../audit/audit-actions';
import { ScopeCatalog, type ScopeDefinition } from '../auth/scope-catalog';
import { ErrorCatalog } from '../errors/error-catalog';
import type { ErrorCode } from '../errors/error-code';
import type { ErrorReplyFormat } from '../errors/error-reply-format';

/**
 * What a module adds to the application's registries: its scopes, error codes and audit actions,
 * each the record its `<module>.scopes.ts`, `.errors.ts` and `.audit.ts` export, and the error
 * body of a protocol it serves under a path of its own (SCIM). A Nest module declares it as
 * `static readonly definitions: ModuleDefinitions`; AppModule collects it.
 */
export interface ModuleDefinitions {
  readonly scopes?: Readonly<Record<string, ScopeDefinition>>;
  readonly errors?: Readonly<Record<string, ErrorCode>>;
  readonly auditActions?: Readonly<Record<string, AuditAction>>;
  readonly errorReplyFormats?: readonly ErrorReplyFormat[];
}

/** A source of definitions, named for the error that reports a conflict. */
export interface DefinitionSource {
  readonly name: string;
  readonly definitions: ModuleDefinitions;
  /** The Nest module class that declares them, if any. */
  readonly module?: Type;
}

/**
 * The scopes, error codes and audit actions of one application, collected from its modules once at
 * start-up and frozen. Injected (RegistriesModule) where a list is needed: the scope check of the
 * routes, the validation pipe and the OpenAPI document (for the lists that validators and
 * schemas name with registryList), and passed to AdminService (the CLI's scopes, the demo key).
 */
export class Registries {
  constructor(
    readonly scopes: ScopeCatalog,
    readonly errors: ErrorCatalog,
    readonly auditActions: AuditActionCatalog,
    /** The error bodies of paths that answer failures in their protocol's body, by path prefix (the exception filter, the document). */
    readonly errorReplyFormats: readonly ErrorReplyFormat[] = [],
  ) {
    Object.freeze(this);
  }
}

/**
 * Builds the registries from each source's definitions. A name (or an error format's path) listed twice fails, naming both
 * sources, unless both list the very same definition object (a module re-exporting a shared code):
 * two definitions of one scope or code fail even when they agree, and so does an audit action
 * listed twice, since actions are plain names.
 */
export function collectRegistries(sources: readonly DefinitionSource[]): Registries {
  const scopes = new Listing<ScopeDefinition>('Scope');
  const errors = new Listing<ErrorCode>('Error code');
  const actions = new Listing<AuditAction>('Audit action');
  const formats = new Listing<ErrorReplyFormat>('Error reply format of the path');
  for (const { name, definitions } of sources) {
    for (const scope of Object.values(definitions.scopes ?? {})) scopes.add(scope.name, scope, name);
    for (const error of Object.values(definitions.errors ?? {})) errors.add(error.code, error, name);
    for (const action of Object.values(definitions.auditActions ?? {})) actions.add(action, action, name);
    for (const format of definitions.errorReplyFormats ?? []) formats.add(format.pathPrefix.toLowerCase(), format, name);
  }
  return new Registries(
    new ScopeCatalog(scopes.values()),
    new ErrorCatalog(errors.values()),
    new AuditActionCatalog(actions.values()),
    Object.freeze(formats.values()),
  );
}

/** The definitions a Nest module class declares (`static readonly definitions`), none for a module without. */
export function moduleDefinitionSource(module: Type | DynamicModule): DefinitionSource {
  const type = 'module' in module ? module.module : module;
  const definitions = (type as { definitions?: ModuleDefinitions }).definitions ?? {};
  return { name: type.name, definitions, module: type };
}

class Listing<Definition> {
  private readonly byName = new Map<string, { definition: Definition; source: string }>();

  constructor(private readonly kind: string) {}

  add(name: string, definition: Definition, source: string): void {
    const listed = this.byName.get(name);
    if (listed === undefined) {
      this.byName.set(name, { definition, source });
      return;
    }
    if (typeof definition === 'object' && listed.definition === definition) return;
    throw new Error(`${this.kind} ${name} is defined twice: by ${listed.source} and by ${source}. Each name has one definition, listed by the module that owns it.`);
  }

  values(): Definition[] {
    return [...this.byName.values()].map(({ definition }) => definition);
  }
}
