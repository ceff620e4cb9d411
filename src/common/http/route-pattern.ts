import type { Request } from 'express';

/**
 * The route a request matched, as declared (`/api/openapi/v1/expert-suites/:id`), or undefined
 * when none did (an unknown path, or a request answered before routing, such as an invalid Host
 * header). Express keeps the matched route on the request, so this costs a property read.
 */
export function routePattern(request: Request): string | undefined {
  return (request.route as { path?: string } | undefined)?.path;
}
