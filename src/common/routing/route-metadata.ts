import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

type Controller = abstract new (...args: never[]) => unknown;

const byController = new WeakMap<Controller, WeakMap<object, Map<string, unknown>>>();

/**
 * What `reflector.getAllAndOverride(key, [handler, controller])` answers for the route a request
 * matched, read once per route: decorators' metadata never changes after start-up, and the guards
 * ask for it several times a request (docs/adr/0014-a-lean-request-pipeline-on-express.md). Every guard and
 * interceptor reads route metadata through this function.
 */
export function routeMetadata<T>(reflector: Reflector, key: string, context: ExecutionContext): T | undefined {
  const controller = context.getClass() as Controller;
  const handler = context.getHandler();
  let handlers = byController.get(controller);
  if (!handlers) byController.set(controller, (handlers = new WeakMap()));
  let values = handlers.get(handler);
  if (!values) handlers.set(handler, (values = new Map()));
  if (!values.has(key)) values.set(key, reflector.getAllAndOverride<T>(key, [handler, controller]));
  return values.get(key) as T | undefined;
}
