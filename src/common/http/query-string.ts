import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors/app-error';

/**
 * Refuses a query string that is not percent-encoded UTF-8 (`caf%E9`, an encoded surrogate, a `%`
 * not followed by two hex digits): Express's parser would turn such bytes into U+FFFD without a
 * word, and a lookup would then run for a value the client never sent. 400 `invalid_value` naming
 * the parameter (or `query` when its name itself does not decode).
 */
export function refuseUndecodableQueryString(request: Request, _response: Response, next: NextFunction): void {
  const start = request.url.indexOf('?');
  if (start === -1) return next();
  for (const pair of request.url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = decoded(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decoded(pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      const field = name ?? 'query';
      return next(AppError.validation(field, 'invalid_value', `${field}: the query string must be UTF-8, percent-encoded.`));
    }
  }
  next();
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
