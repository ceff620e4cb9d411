import type { Request, Response } from 'express';
import { AppError } from '../errors/app-error';
import { refuseUndecodableQueryString } from './query-string';

/** What the middleware passes on: undefined to go on, or the error it refuses with. */
function outcome(url: string): AppError | undefined {
  let passed: unknown = 'not called';
  refuseUndecodableQueryString({ url } as Request, {} as Response, (error?: unknown) => (passed = error));
  if (passed === 'not called') throw new Error('next was not called');
  return passed as AppError | undefined;
}

describe('refuseUndecodableQueryString', () => {
  it.each(['/x', '/x?', '/x?a=1&b=caf%C3%A9', '/x?name=a+b&empty=&flag', '/x?emoji=%F0%9F%98%80'])('lets %s through', (url) => {
    expect(outcome(url)).toBeUndefined();
  });

  it.each([
    ['/x?external_id=caf%E9', 'external_id'],
    ['/x?external_id=%ED%A0%80', 'external_id'],
    ['/x?a=1&b=50%', 'b'],
    ['/x?%FF=1', 'query'],
  ])('refuses %s naming %s', (url, field) => {
    const error = outcome(url);
    expect(error).toBeInstanceOf(AppError);
    expect(error?.details).toEqual({ field, reason: 'invalid_value' });
  });
});
