import { Logger, NotFoundException, PayloadTooLargeException, ServiceUnavailableException, type ArgumentsHost } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { DatabaseOutageLog } from '../../database/outage-log';
import { DatabaseBusyError } from '../../database/postgres-pool';
import { Clock } from '../clock';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { AppError } from './app-error';
import { ErrorCode } from './error-code';
import { errorReply } from './error-reply';
import type { ErrorReplyFormat } from './error-reply-format';
import { collectRegistries } from '../registries/registries';
import { ExpertSuitesError } from '../../modules/expert-suites/expert-suites.errors';

class ProtocolError extends Error {}

/** A format answering under /proto: its own errors with status 418, any other with the status the filter names. */
const PROTOCOL_FORMAT: ErrorReplyFormat = {
  pathPrefix: '/proto',
  mediaType: 'application/proto+json',
  schemaName: 'ProtocolError',
  replyToOwn: (exception) => (exception instanceof ProtocolError ? { status: 418, headers: {}, body: { problem: exception.message } } : undefined),
  reply: (error) => ({ ...errorReply(error), body: { problem: error.detail, status: String(error.status) } }),
};

/** What the filter wrote: status, headers and body, through the few response methods it uses. */
function answer(exception: unknown, headersSent = false, path = '/x') {
  const written: { status?: number; body?: Record<string, unknown>; headers: Record<string, string> } = { headers: {} };
  const response = {
    headersSent,
    getHeader: () => 'request-1',
    setHeader: (name: string, value: string) => (written.headers[name] = value),
    status(status: number) {
      written.status = status;
      return this;
    },
    json: (body: Record<string, unknown>) => (written.body = body),
  };
  const request = { method: 'GET', path };
  const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }) } as unknown as ArgumentsHost;
  const registries = collectRegistries([{ name: 'ProtocolModule', definitions: { errorReplyFormats: [PROTOCOL_FORMAT] } }]);
  new AllExceptionsFilter(new DatabaseOutageLog(new Clock()), registries).catch(exception, host);
  return written;
}

const known = (code: string, meta?: Record<string, unknown>) => new Prisma.PrismaClientKnownRequestError('failed', { code, clientVersion: 'test', meta });

describe('AllExceptionsFilter: every failure in the error body', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['error', 'warn', 'log']));

  it('answers an AppError as it is, with its details and headers', () => {
    const error = new AppError(ExpertSuitesError.REVISION_CONFLICT, 'stale', { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '3' }, { 'X-Extra': '1' });
    expect(answer(error)).toEqual({
      status: 409,
      headers: { 'X-Extra': '1' },
      body: { code: 'REVISION_CONFLICT', error: 'conflict', detail: 'stale', details: { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '3' } },
    });
  });

  it.each([
    ['an unknown route (Nest NotFoundException)', new NotFoundException(), 404, 'NOT_FOUND', {}],
    ['a body over the limit (PayloadTooLargeException)', new PayloadTooLargeException(), 413, 'PAYLOAD_TOO_LARGE', {}],
    ['a busy pool', new DatabaseBusyError(5000), 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '1' }],
    ['an unreachable database', known('P1001'), 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '5' }],
    ['a 503 raised without a Retry-After (an AppError)', new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'down'), 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '5' }],
    ['a 503 raised the framework\'s way (ServiceUnavailableException)', new ServiceUnavailableException(), 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '5' }],
    ['text the database cannot store', known('P2010', { driverAdapterError: { cause: { kind: 'postgres', code: '22021' } } }), 400, 'VALIDATION_FAILED', {}],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'secret_column')"), 500, 'INTERNAL_ERROR', {}],
    ['a thrown string', 'boom', 500, 'INTERNAL_ERROR', {}],
  ])('maps %s to %i %s', (_case, exception, status, code, headers) => {
    const written = answer(exception);
    expect({ status: written.status, code: written.body?.code, headers: written.headers }).toEqual({ status, code, headers });
    expect(typeof written.body?.detail).toBe('string');
  });

  it('leaks nothing of an unexpected error: no message, stack or SQL in the body', () => {
    const written = answer(new Error('relation "secret_table" does not exist at SELECT * FROM secret_table'));
    expect(JSON.stringify(written.body)).not.toMatch(/secret|SELECT|at /);
    expect(written.body?.detail).toContain('X-Request-Id');
  });

  it('writes nothing when the answer has already started', () => {
    expect(answer(new TypeError('late'), true)).toEqual({ headers: {} });
  });

  it('answers under a path with an error format of its own in that format: its own errors as it says, any other as the filter names it, headers kept', () => {
    expect(answer(new ProtocolError('teapot'), false, '/proto/Things')).toEqual({ status: 418, headers: { 'Content-Type': 'application/proto+json' }, body: { problem: 'teapot' } });
    expect(answer(new NotFoundException(), false, '/PROTO')).toEqual({
      status: 404,
      headers: { 'Content-Type': 'application/proto+json' },
      body: { problem: 'No such resource.', status: '404' },
    });
    expect(answer(new DatabaseBusyError(5000), false, '/proto/x').headers).toEqual({ 'Retry-After': '1', 'Content-Type': 'application/proto+json' });
    // Not under the prefix: the API's body, whatever the path begins with.
    expect(answer(new NotFoundException(), false, '/protocols').body).toEqual({ code: 'NOT_FOUND', error: 'not_found', detail: 'No such resource.' });
    expect(answer(new ProtocolError('teapot'), false, '/x').status).toBe(500);
  });
});
