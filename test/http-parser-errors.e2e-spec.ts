import type { Server } from 'node:http';
import { connect } from 'node:net';
import { useTestApp } from './support/test-app';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are (no client library would send these) and reads the whole answer. */
function sendRaw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body = ''] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

describe('requests refused by the HTTP parser', () => {
  const service = useTestApp({ listen: true });

  it.each([
    ['an unknown method', 'FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'MALFORMED_REQUEST', 'bad_request'],
    ['a control character in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n', 400, 'MALFORMED_REQUEST', 'bad_request'],
    ['a request line that is not HTTP', 'hello there\r\n\r\n', 400, 'MALFORMED_REQUEST', 'bad_request'],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431, 'REQUEST_HEADERS_TOO_LARGE', 'request_header_fields_too_large'],
  ])('answers %s in the error body with an X-Request-Id', async (_case, bytes, status, code, error) => {
    const answer = await sendRaw(service.port, bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(answer.body)).toEqual({ code, error, detail: expect.any(String) });
  });
});

describe('HTTP server timeouts', () => {
  const fixture = useTestApp({ overrides: { HTTP_KEEP_ALIVE_TIMEOUT_MS: 61_000, HTTP_HEADERS_TIMEOUT_MS: 62_000 } });

  it('takes the keep-alive and headers timeouts from the settings', () => {
    const server = fixture.app.app.getHttpServer() as Server;
    expect({ keepAlive: server.keepAliveTimeout, headers: server.headersTimeout }).toEqual({ keepAlive: 61_000, headers: 62_000 });
  });
});
