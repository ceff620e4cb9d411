import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors/app-error';

/**
 * A host as the service accepts it in `Host`: a DNS name or IPv4 address (letters, digits, `.`,
 * `-`, `_`) or an IPv6 address in brackets, with an optional port. Narrower than RFC 3986's
 * reg-name on purpose: the value goes into URLs the service hands out (icon_url), where quotes,
 * angle brackets, `@`, `/` or percent signs have no business.
 */
const VALID_HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function isValidHost(value: string): boolean {
  return VALID_HOST.test(value);
}

/**
 * 400 VALIDATION_FAILED (`Host`, `invalid_format`) for a request whose Host header is not a host
 * (RFC 9112, 3.2: a server must answer 400 to an invalid Host). Checked for every request, so that
 * nothing later reflects it. A request without Host (HTTP/1.0) passes: Node already refuses an
 * HTTP/1.1 request without one.
 */
export function refuseInvalidHostHeader(request: Request, _response: Response, next: NextFunction): void {
  const host = request.headers.host;
  if (host === undefined || isValidHost(host)) return next();
  next(AppError.validation('Host', 'invalid_format', 'Host: must be a host name or IP address with an optional port.'));
}
