import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { TransactionHost } from '../../database/transaction-host';
import { IDEMPOTENT_SQL_ONLY } from './idempotency.interceptor';

/** What Nest records for `@Inject(token)` on a constructor parameter (its SELF_DECLARED_DEPS_METADATA). */
type DeclaredDependency = { index: number; param: unknown };

/** The classes a class's constructor asks for, as Nest resolves them (an `@Inject` token replaces the parameter's type). */
function dependenciesOf(type: Type): Type[] {
  const types: unknown[] = [...((Reflect.getMetadata('design:paramtypes', type) as unknown[] | undefined) ?? [])];
  for (const { index, param } of (Reflect.getMetadata('self:paramtypes', type) as DeclaredDependency[] | undefined) ?? []) types[index] = param;
  return types
    .map((token) => (token && typeof token === 'object' && 'forwardRef' in token ? (token as { forwardRef: () => unknown }).forwardRef() : token))
    .filter((token): token is Type => typeof token === 'function');
}

/**
 * The chain of constructor dependencies from `root` to TransactionHost, the way to model queries
 * (`txHost.tx`), or undefined when every service `root` reaches injects at most `SqlHost`.
 */
export function pathToModelQueries(root: Type): Type[] | undefined {
  const seen = new Set<Type>();
  const visit = (type: Type, path: Type[]): Type[] | undefined => {
    if (type === TransactionHost) return path;
    if (seen.has(type)) return undefined;
    seen.add(type);
    for (const dependency of dependenciesOf(type)) {
      const found = visit(dependency, [...path, dependency]);
      if (found) return found;
    }
    return undefined;
  };
  return visit(root, [root]);
}

/** The handlers of `controller` marked `@Idempotent({ sqlOnly: true })`, by method name. */
export function sqlOnlyHandlers(controller: Type): string[] {
  const prototype = controller.prototype as Record<string, unknown>;
  const onController = Reflect.getMetadata(IDEMPOTENT_SQL_ONLY, controller) === true;
  return Object.getOwnPropertyNames(prototype).filter((name) => {
    const handler = name === 'constructor' ? undefined : Object.getOwnPropertyDescriptor(prototype, name)?.value;
    if (typeof handler !== 'function') return false;
    return (Reflect.getMetadata(IDEMPOTENT_SQL_ONLY, handler) as boolean | undefined) ?? onController;
  });
}

/** Why `controller` cannot run its `sqlOnly` handlers in a SQL transaction, or undefined when it can. */
export function transactionKindMismatch(controller: Type): string | undefined {
  const handlers = sqlOnlyHandlers(controller);
  const path = handlers.length > 0 ? pathToModelQueries(controller) : undefined;
  if (!path) return undefined;
  return (
    `${handlers.map((name) => `${controller.name}.${name}`).join(', ')}: @Idempotent({ sqlOnly: true }) runs the handler in a SQL transaction, ` +
    `where model queries throw, but the controller reaches TransactionHost (${path.map((type) => type.name).join(' → ')}). ` +
    'Inject SqlHost in services that write only through txHost.sql, or drop sqlOnly (docs/architecture.md, "One way to the database").'
  );
}

/**
 * Refuses to start an application whose `@Idempotent({ sqlOnly: true })` route could reach a model
 * query, which would otherwise fail only when the route runs. It reads constructor dependencies,
 * so a service that fetches another at run time (ModuleRef) is not seen.
 */
@Injectable()
export class TransactionKindCheck implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const mismatches = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype)
      .filter((metatype): metatype is Type => typeof metatype === 'function')
      .map(transactionKindMismatch)
      .filter((mismatch) => mismatch !== undefined);
    if (mismatches.length > 0) throw new Error(mismatches.join('\n'));
  }
}
