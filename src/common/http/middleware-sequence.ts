import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middlewares mounted as one Express layer, run in order; an error (passed to next, thrown,
 * or an async middleware's rejection) skips the rest and goes on to Express's error handling, as
 * between separate layers. Every layer costs Express's router work on every request before its
 * function runs (matching, path trimming, a promise check), measured in docs/adr/0014-a-lean-request-pipeline-on-express.md.
 */
export function middlewareSequence(...steps: RequestHandler[]): RequestHandler {
  if (steps.length === 1) return steps[0];
  return (request: Request, response: Response, next: NextFunction) => {
    let index = 0;
    const proceed = (error?: unknown): void => {
      if (error) return next(error);
      if (index === steps.length) return next();
      const step = steps[index++];
      try {
        const result: unknown = step(request, response, proceed);
        // As Express 5 does for a layer: an async middleware's rejection is the request's error.
        if (result instanceof Promise) result.catch((error: unknown) => next(error || new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    proceed();
  };
}
