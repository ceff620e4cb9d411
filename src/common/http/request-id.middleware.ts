import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { holdsSecret } from '../secret-prefixes';

export const REQUEST_ID_HEADER = 'X-Request-Id';
// A caller's id is echoed only when it is safe to log and to put back in a header: printable ASCII,
// and no secret (an API key pasted as a trace id would be logged with every line of the request).
const ACCEPTABLE_ID = /^[\x21-\x7e]{1,128}$/;

/** Echoes the caller's X-Request-Id, or makes one, on every response (errors included). */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const given = request.header(REQUEST_ID_HEADER);
  const id = given && ACCEPTABLE_ID.test(given) && !holdsSecret(given) ? given : randomUUID();
  request.headers['x-request-id'] = id;
  response.setHeader(REQUEST_ID_HEADER, id);
  next();
}
