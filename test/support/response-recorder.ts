import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isJsonContentType, type RecordedResponse } from './openapi-response-validator';

/** Larger JSON bodies are cut (and then fail to parse): no answer of the API comes near this. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;

type Chunk = string | Uint8Array | undefined | null | ((error?: Error | null) => void);

/**
 * Hands every answer `server` finishes to `onResponse`, ahead of the app's own request handler so
 * that every answer is seen (supertest and real sockets alike). Answers whose connection broke
 * before they were sent in full are left out. Only JSON bodies are kept.
 */
export function recordResponses(server: Server, onResponse: (response: RecordedResponse) => void): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? '';
    const url = request.url ?? '';
    const kept: Buffer[] = [];
    let bodyLength = 0;
    let keptLength = 0;
    const see = (chunk: Chunk, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || chunk.length === 0) return;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : chunk;
      bodyLength += bytes.length;
      if (keptLength < MAX_KEPT_BODY_BYTES && isJsonContentType(response.getHeader('content-type'))) {
        kept.push(Buffer.from(bytes));
        keptLength += bytes.length;
      }
    };
    const write = response.write;
    const end = response.end;
    response.write = function (this: ServerResponse, chunk: Chunk, ...rest: unknown[]) {
      see(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    response.end = function (this: ServerResponse, chunk?: Chunk, ...rest: unknown[]) {
      see(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
    response.once('finish', () =>
      onResponse({
        method,
        url,
        status: response.statusCode,
        headers: response.getHeaders(),
        bodyLength,
        jsonBody: kept.length > 0 ? Buffer.concat(kept) : undefined,
      }),
    );
  });
}
