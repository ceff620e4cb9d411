import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  /** Name/value pairs sent exactly as given, repeats included. */
  headers?: Array<[string, string]>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

/**
 * One HTTP request with exact bytes and headers (repeated headers, any Content-Length), through
 * node:http. Host, and Content-Length for a body, are added unless given.
 */
export function rawRequest(base: string, { method, path, headers = [], body }: RawRequest): Promise<RawResponse> {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const has = (header: string) => headers.some(([name]) => name.toLowerCase() === header);
  // With headers given as a list, node:http adds neither Host nor Content-Length itself.
  const flat = [...(has('host') ? [] : ['Host', new URL(base).host]), ...headers.flat()];
  if (bytes !== undefined && !has('content-length')) flat.push('Content-Length', String(bytes.length));
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers: flat }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(bytes);
  });
}
