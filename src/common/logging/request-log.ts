import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AuthenticatedRequest } from '../auth/principal';
import { elapsedMs } from '../http/request-timing';
import { routePattern } from '../http/route-pattern';
import { loggablePath } from './loggable-path';

const REQUEST_ID = 'request_id';

/**
 * One line per finished request (pino-http): request id, method, route pattern, status, duration,
 * and the API key and organization once authenticated. Nothing else of the request or the
 * response: no headers (Authorization), no body, no query string, no API key put into a path.
 */
export function requestLogMiddleware(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    // The id requestIdMiddleware settled on (the caller's X-Request-Id or a new uuid), not a second one.
    genReqId: (request) => request.headers['x-request-id'] as string,
    // pino-http binds each request to a child logger under this key; the serializer keeps its id only.
    customAttributeKeys: { req: REQUEST_ID },
    wrapSerializers: false,
    serializers: { [REQUEST_ID]: (request: IncomingMessage & { id: string }) => request.id },
    customSuccessObject: requestLine,
    customErrorObject: requestLine,
    // A connection closed before the answer was sent is worth a look, not an alert.
    customLogLevel: (_request, response) => (answered(response) ? 'info' : 'warn'),
  }) as unknown as RequestHandler;
}

/** The whole answer was handed to the connection (else the client closed it first). */
function answered(response: ServerResponse): boolean {
  return response.writableEnded;
}

function requestLine(request: IncomingMessage, response: ServerResponse) {
  const { principal } = request as AuthenticatedRequest;
  return {
    method: request.method,
    // Where no route matched, the path without the query string, API keys redacted.
    route: routePattern(request as Request) ?? loggablePath(request as Request),
    // Only an answer that was sent has a status: the one set for it (201 on a create) was never seen.
    status: answered(response) ? response.statusCode : undefined,
    aborted: answered(response) ? undefined : true,
    duration_ms: Math.round(elapsedMs(response as Response) * 100) / 100,
    api_key_id: principal?.apiKeyId,
    organization_id: principal?.organizationId,
  };
}
