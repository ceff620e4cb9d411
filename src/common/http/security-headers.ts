import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

type HeaderMiddleware = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

/** The headers a middleware writes, and those it removes, recorded without a request. */
interface HeaderChanges {
  set: Array<[name: string, value: string]>;
  removed: string[];
}

/**
 * Helmet's headers on every answer (nosniff, no-referrer, HSTS, frame denial...), with a
 * Content-Security-Policy that still lets Swagger UI at /docs work: the page Nest serves carries
 * inline styles, and Swagger UI draws its icons from data: URLs and images it fetched from blob: URLs. Scripts stay same-origin only.
 * Routes that need other values (the icon content route) set their own after this middleware.
 *
 * Helmet decides the headers; with this configuration (no directive is a function of the request)
 * they are the same on every answer, so they are taken from it once at start-up and written by one
 * middleware: helmet's chain of thirteen middlewares cost CPU on every request (docs/adr/0014-a-lean-request-pipeline-on-express.md).
 */
export function securityHeadersMiddleware(): RequestHandler {
  const { set, removed } = headerChangesOf(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          'style-src': ["'self'", "'unsafe-inline'"],
          // blob: for Swagger UI, which shows an image a "Try it out" answers (an icon) from a blob URL.
          'img-src': ["'self'", 'data:', 'blob:'],
          // Served over plain HTTP behind a TLS-terminating proxy or locally: upgrading would break /docs there.
          'upgrade-insecure-requests': null,
        },
      },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
  return (_request: Request, response: Response, next: NextFunction) => {
    for (const [name, value] of set) response.setHeader(name, value);
    for (const name of removed) response.removeHeader(name);
    next();
  };
}

/** Runs `middleware` once on a stand-in response that records what it writes; it must finish at once. */
export function headerChangesOf(middleware: HeaderMiddleware): HeaderChanges {
  const changes: HeaderChanges = { set: [], removed: [] };
  const recorder = {
    setHeader: (name: string, value: string) => changes.set.push([name, value]),
    removeHeader: (name: string) => changes.removed.push(name),
  };
  let finished = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    if (error) throw error;
    finished = true;
  });
  if (!finished) throw new Error('The security headers middleware did not finish synchronously');
  return changes;
}
