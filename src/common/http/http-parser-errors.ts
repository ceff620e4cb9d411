import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { errorReply } from '../errors/error-reply';
import { REQUEST_ID_HEADER } from './request-id.middleware';

const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [ErrorCode.REQUEST_HEADERS_TOO_LARGE, 'The request headers are larger than the server accepts.'],
  ERR_HTTP_REQUEST_TIMEOUT: [ErrorCode.REQUEST_TIMEOUT, 'The request was not received in time.'],
  ERR_HTTP_HEADERS_TIMEOUT: [ErrorCode.REQUEST_TIMEOUT, 'The request headers were not received in time.'],
};
const MALFORMED: [ErrorCode, string] = [ErrorCode.MALFORMED_REQUEST, 'The request is not valid HTTP (method, request line or a header value).'];

/**
 * Requests Node's HTTP parser refuses (an unknown method, oversized headers, control characters in
 * a header value) never reach Express; Node would answer them with an empty 400. This answers
 * them in the error body with an X-Request-Id, as every other failure, then closes the connection.
 */
export function answerHttpParserErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [code, detail] = ANSWERS[error.code ?? ''] ?? MALFORMED;
    const { status, headers, body } = errorReply(new AppError(code, detail));
    const json = JSON.stringify(body);
    const extraHeaders = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${extraHeaders}` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
        `${REQUEST_ID_HEADER}: ${randomUUID()}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}
