import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_ID_HEADER } from './request-id.middleware';

const logger = new Logger('HTTP');

/**
 * One line per finished request: method, path (no query string), status, duration and request id.
 * Headers are never logged, so neither API keys nor Authorization values reach the logs.
 */
export function accessLogMiddleware(request: Request, response: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  response.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.log(`${request.method} ${request.path} ${response.statusCode} ${ms.toFixed(1)}ms request_id=${String(response.getHeader(REQUEST_ID_HEADER))}`);
  });
  next();
}
