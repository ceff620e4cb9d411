import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { middlewareSequence } from './middleware-sequence';

type Outcome = { error?: unknown };

function run(handler: RequestHandler): Promise<Outcome> {
  return new Promise((resolve) => handler({} as Request, {} as Response, ((error?: unknown) => resolve({ error })) as NextFunction));
}

describe('middlewareSequence', () => {
  it('runs the steps in order, waiting for each one that calls next later, then calls next', async () => {
    const ran: string[] = [];
    const step = (name: string, later = false): RequestHandler => (_request, _response, next) => {
      ran.push(name);
      if (later) setImmediate(next);
      else next();
    };
    const outcome = await run(middlewareSequence(step('a'), step('b', true), step('c')));
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(outcome.error).toBeUndefined();
  });

  it.each([
    ['passed to next', (error: Error): RequestHandler => (_request, _response, next) => next(error)],
    ['thrown', (error: Error): RequestHandler => () => {
      throw error;
    }],
    ['as an async rejection', (error: Error): RequestHandler => async () => {
      await Promise.resolve();
      throw error;
    }],
  ])('skips the remaining steps after an error %s, and hands the error on', async (_how, failing) => {
    const error = new Error('refused');
    const after = jest.fn();
    const outcome = await run(middlewareSequence((_request, _response, next) => next(), failing(error), after));
    expect(outcome.error).toBe(error);
    expect(after).not.toHaveBeenCalled();
  });

  it('stops at a step that answers the request itself (does not call next)', async () => {
    const after = jest.fn();
    const handler = middlewareSequence(() => undefined, after);
    const next = jest.fn();
    handler({} as Request, {} as Response, next);
    expect(after).not.toHaveBeenCalled();
    expect(next).not.toHaveBeenCalled();
  });
});
