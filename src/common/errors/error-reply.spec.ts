import { AppError } from './app-error';
import { ErrorCode } from './error-code';
import { errorReply } from './error-reply';

describe('errorReply', () => {
  it('writes the error body with the status of its code', () => {
    const error = AppError.validation('since', 'invalid_value', 'since: must not be before 1970-01-01T00:00:00.000Z');
    expect(errorReply(error)).toEqual({
      status: 400,
      headers: {},
      body: { code: 'VALIDATION_FAILED', error: 'bad_request', detail: error.detail, details: { field: 'since', reason: 'invalid_value' } },
    });
  });

  it('gives every 503 a Retry-After: the one the error names, else 5 seconds', () => {
    expect(errorReply(new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'down')).headers).toEqual({ 'Retry-After': '5' });
    expect(errorReply(new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'busy', undefined, { 'Retry-After': '1' })).headers).toEqual({ 'Retry-After': '1' });
  });

  it('adds no Retry-After to other failures, and keeps the headers they carry', () => {
    expect(errorReply(new AppError(ErrorCode.INTERNAL_ERROR, 'bug')).headers).toEqual({});
    expect(errorReply(new AppError(ErrorCode.RATE_LIMITED, 'slow down', undefined, { 'Retry-After': '30' })).headers).toEqual({ 'Retry-After': '30' });
  });
});
