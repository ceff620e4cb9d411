import type { LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../../config/app-config';
import { Readiness } from './readiness';

// Once the listener is closed, a connection still idle after this long is a keep-alive connection
// with nothing more to send (a request already on its way would have been read by then): closed.
const IDLE_GRACE_MS = 1000;

/**
 * Stops the service on SIGTERM or SIGINT without dropping a request: readiness turns 503 at once
 * and every response carries `Connection: close`; for SHUTDOWN_DELAY_MS new connections are still
 * served (a load balancer needs that long to notice); then the listener closes, requests in flight
 * finish (at most SHUTDOWN_TIMEOUT_MS, after which the remaining connections are cut), the
 * application and its database close, and the process exits 0.
 */
export function drainOnSignals(app: NestExpressApplication, config: AppConfig, logger: LoggerService): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.get(Readiness).startDraining();
    logger.log(`${signal}: draining (readiness 503); closing the listener in ${config.SHUTDOWN_DELAY_MS} ms`);
    await sleep(config.SHUTDOWN_DELAY_MS);
    const finishedInTime = await closeServer(app.getHttpServer() as Server, config.SHUTDOWN_TIMEOUT_MS);
    if (!finishedInTime) logger.warn(`Requests still running after ${config.SHUTDOWN_TIMEOUT_MS} ms were cut off`);
    await app.close();
    logger.log('Stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, (received) => void stop(received));
}

/**
 * Stops accepting connections and waits until the open ones have ended; false when the wait ran
 * out. The listener is closed at the net level: http.Server#close would also reset at once every
 * connection without a request being processed, including one whose request has arrived but not
 * yet been read.
 */
async function closeServer(server: Server, timeoutMs: number): Promise<boolean> {
  const closed = new Promise<true>((resolve) => NetServer.prototype.close.call(server, () => resolve(true)));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_GRACE_MS);
  const finishedInTime = await Promise.race([closed, sleep(timeoutMs, false)]);
  clearInterval(sweep);
  if (!finishedInTime) server.closeAllConnections();
  return finishedInTime;
}

/** While draining, each response closes its connection, so clients reconnect to another instance. */
export function closeConnectionsWhileDraining(readiness: Readiness) {
  return (_request: Request, response: Response, next: NextFunction): void => {
    if (readiness.isDraining) response.setHeader('Connection', 'close');
    next();
  };
}
