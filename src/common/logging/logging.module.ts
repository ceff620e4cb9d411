import { DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';

/** Injection token of the app instance's pino logger (createAppLogger). */
export const APP_LOGGER = Symbol('APP_LOGGER');

/**
 * Logging through pino: nestjs-pino routes Nest's Logger (every `new Logger(context)`) to `logger`
 * once the app calls `useLogger`. The request lines come from pino-http, which the app mounts
 * among its first middlewares (`useExisting`), so that a request refused before routing gets its
 * line too. nestjs-pino's own per-request middleware is not mounted (`forRoutes: []`): it only
 * puts the request's logger in an AsyncLocalStorage context, which costs every request (on Node 20
 * an async hook on every promise) for the few events logged while serving one.
 */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, useExisting: true, forRoutes: [] })],
      providers: [{ provide: APP_LOGGER, useValue: logger }],
      exports: [APP_LOGGER],
    };
  }
}
