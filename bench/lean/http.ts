import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const BODY_LIMIT_BYTES = 1024 * 1024;
const ACCEPTABLE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

const ERROR_TYPE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** A failure with the contract's status, code and body (docs/api-conventions.md). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly details?: { field: string; reason: string },
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function invalid(field: string, reason: string, detail: string): HttpError {
  return new HttpError(400, 'VALIDATION_FAILED', detail, { field, reason });
}

/** Echoes the caller's X-Request-Id when it is safe to, or makes one; returns it (the audit event records it). */
export function setRequestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

export function sendJson(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendError(response: ServerResponse, error: HttpError): void {
  const body = { code: error.code, error: ERROR_TYPE_BY_STATUS[error.status] ?? 'internal_error', detail: error.detail, details: error.details };
  sendJson(response, error.status, JSON.stringify(body), error.headers);
}

/** The request's JSON object body: 415 unless application/json, 413 over 1 MiB, 400 unless an object. */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the configured limit.');
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'INVALID_JSON', 'The request body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'invalid_type', 'The body must be a JSON object.');
  return body as Record<string, unknown>;
}
