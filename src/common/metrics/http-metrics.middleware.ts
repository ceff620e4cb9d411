import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { elapsedMs } from '../http/request-timing';
import { routePattern } from '../http/route-pattern';
import { Metrics, UNMATCHED_ROUTE } from './metrics';

/** Counts every answered request and its latency by route pattern (never by raw path: that is unbounded). */
export function httpMetricsMiddleware(metrics: Metrics): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    response.once('finish', () => {
      metrics.requestAnswered(request.method, routePattern(request) ?? UNMATCHED_ROUTE, response.statusCode, elapsedMs(response) / 1000);
    });
    next();
  };
}
