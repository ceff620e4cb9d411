import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { AppModule, type AppModuleOptions } from './app.module';
import { accessLogMiddleware } from './common/http/access-log.middleware';
import { closeConnectionsWhileDraining } from './common/lifecycle/graceful-shutdown';
import { Readiness } from './common/lifecycle/readiness';
import { useCors } from './common/http/cors';
import { answerHttpParserErrors } from './common/http/http-parser-errors';
import { useJsonBodyParser } from './common/http/json-body-parser';
import { refuseUndecodableQueryString } from './common/http/query-string';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { useSecurityHeaders } from './common/http/security-headers';
import type { LogLevelName } from './config/app-config';
import { setupSwagger } from './openapi';

const LEVELS: LogLevelName[] = ['error', 'warn', 'log', 'debug', 'verbose'];

function logLevelsUpTo(level: LogLevelName): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/** Builds the whole HTTP application (used by main and by the e2e tests alike), not yet listening. */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), {
    bodyParser: false,
    logger: new ConsoleLogger({ logLevels: logLevelsUpTo(options.config.LOG_LEVEL), json: options.config.LOG_FORMAT === 'json' }),
  });
  app.disable('x-powered-by');
  // No hash ETags on every answer: resources with revisions send their own ("<revision>"), and
  // Express still answers 304 for those when If-None-Match matches.
  app.set('etag', false);
  // req.ip is the connection's peer unless that peer is a listed proxy; then X-Forwarded-For is read.
  app.set('trust proxy', options.config.trustedProxies.length > 0 ? options.config.trustedProxies : false);
  // Before the body parser, so that even a rejected body gets its X-Request-Id.
  app.use(requestIdMiddleware);
  app.use(accessLogMiddleware);
  app.use(refuseUndecodableQueryString);
  useSecurityHeaders(app);
  useCors(app, options.config.corsOrigins);
  app.use(closeConnectionsWhileDraining(app.get(Readiness)));
  useJsonBodyParser(app, options.config.JSON_BODY_LIMIT_BYTES);
  const server = app.getHttpServer();
  server.keepAliveTimeout = options.config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = options.config.HTTP_HEADERS_TIMEOUT_MS;
  answerHttpParserErrors(server);
  setupSwagger(app);
  await app.init();
  return app;
}
