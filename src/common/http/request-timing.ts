import type { NextFunction, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';

const STARTED_AT = Symbol('requestStartedAt');

type TimedResponse = Response & { [STARTED_AT]?: number };

/** Notes when a request arrived; the first middleware, so that the time covers every layer. */
export function requestTimingMiddleware(_request: Request, response: Response, next: NextFunction): void {
  (response as TimedResponse)[STARTED_AT] = performance.now();
  next();
}

/** Milliseconds since the request arrived (the request log and the latency metric read the same clock). */
export function elapsedMs(response: Response): number {
  const startedAt = (response as TimedResponse)[STARTED_AT];
  return startedAt === undefined ? 0 : performance.now() - startedAt;
}
