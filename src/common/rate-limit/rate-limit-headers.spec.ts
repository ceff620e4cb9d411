import { rateLimitHeaders } from './rate-limit-headers';

const POLICY = { name: 'default', limit: 600, windowMs: 60_000 };

describe('rateLimitHeaders', () => {
  it('states the policy and what is left of it, in structured-field form', () => {
    expect(rateLimitHeaders(POLICY, { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 })).toEqual({
      'RateLimit-Policy': '"default";q=600;w=60',
      RateLimit: '"default";r=599;t=60',
    });
  });

  it('answers a refused request with nothing left, restored when it may retry', () => {
    expect(rateLimitHeaders(POLICY, { totalHits: 605, timeToExpire: 12, isBlocked: true, timeToBlockExpire: 47 }).RateLimit).toBe('"default";r=0;t=47');
  });

  it('rounds a window of part seconds up, and quotes and escapes the policy name', () => {
    expect(rateLimitHeaders({ name: 'per "key"\\x', limit: 5, windowMs: 1500 }, { totalHits: 2, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 })).toEqual({
      'RateLimit-Policy': '"per \\"key\\"\\\\x";q=5;w=2',
      RateLimit: '"per \\"key\\"\\\\x";r=3;t=1',
    });
  });

  it('refuses a policy name a structured-field string cannot hold', () => {
    expect(() => rateLimitHeaders({ ...POLICY, name: 'naïve' }, { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 })).toThrow(/printable ASCII/);
  });
});
