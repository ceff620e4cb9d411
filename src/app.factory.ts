import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { AppModule, type AppModuleOptions } from './app.module';
import { closeConnectionsWhileDraining } from './common/lifecycle/graceful-shutdown';
import { Readiness } from './common/lifecycle/readiness';
import { useCors } from './common/http/cors';
import { answerHttpParserErrors } from './common/http/http-parser-errors';
import { JsonReplyExpressAdapter } from './common/http/json-reply.adapter';
import { middlewareSequence } from './common/http/middleware-sequence';
import { refuseInvalidHostHeader } from './common/http/host-header';
import { refuseUndecodableQueryString } from './common/http/query-string';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { requestTimingMiddleware } from './common/http/request-timing';
import { securityHeadersMiddleware } from './common/http/security-headers';
import { FrameworkStartLogQuieter } from './common/logging/framework-start-log';
import { APP_LOGGER } from './common/logging/logging.module';
import { requestLogMiddleware } from './common/logging/request-log';
import { httpMetricsMiddleware } from './common/metrics/http-metrics.middleware';
import { Metrics } from './common/metrics/metrics';
import { setupSwagger } from './openapi';

/** Builds the whole HTTP application (used by main and by the e2e tests alike), not yet listening. */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), new JsonReplyExpressAdapter(), {
    bodyParser: false,
    // Held until the pino logger takes over, so that start-up lines come out in the same format.
    bufferLogs: true,
  });
  app.useLogger(new FrameworkStartLogQuieter(app.get(Logger)));
  // Nest itself would flush them only in listen(), which the tests never call.
  app.flushLogs();
  app.disable('x-powered-by');
  // No hash ETags on every answer: resources with revisions send their own ("<revision>"), and
  // Express still answers 304 for those when If-None-Match matches.
  app.set('etag', false);
  // req.ip is the connection's peer unless that peer is a listed proxy; then X-Forwarded-For is read.
  app.set('trust proxy', options.config.trustedProxies.length > 0 ? options.config.trustedProxies : false);
  // Only what is read is mounted: no request pays for lines that LOG_LEVEL drops (warn, error) or
  // for metrics that no metrics server serves.
  const logger = app.get<PinoLogger>(APP_LOGGER);
  const logsRequests = logger.isLevelEnabled('info');
  const countsRequests = options.config.METRICS_PORT !== undefined;
  // Before routing, so that even a refused request gets its X-Request-Id, its log line and its count.
  app.use(
    middlewareSequence(
      ...(logsRequests || countsRequests ? [requestTimingMiddleware] : []),
      requestIdMiddleware,
      ...(logsRequests ? [requestLogMiddleware(logger)] : []),
      ...(countsRequests ? [httpMetricsMiddleware(app.get(Metrics))] : []),
      refuseUndecodableQueryString,
      refuseInvalidHostHeader,
      securityHeadersMiddleware(),
      closeConnectionsWhileDraining(app.get(Readiness)),
    ),
  );
  useCors(app, options.config.corsOrigins);
  const server = app.getHttpServer();
  server.keepAliveTimeout = options.config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = options.config.HTTP_HEADERS_TIMEOUT_MS;
  answerHttpParserErrors(server);
  setupSwagger(app);
  await app.init();
  return app;
}
