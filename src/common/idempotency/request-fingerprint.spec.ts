import type { Request } from 'express';
import { requestFingerprint } from './request-fingerprint';

const request = (method: string, path: string, body: unknown, query: Record<string, unknown> = {}) => ({ method, path, query, body }) as unknown as Request;

describe('requestFingerprint', () => {
  it('ignores the order of object keys, at any depth', () => {
    const a = request('POST', '/d', { name: 'x', meta: { a: 1, b: [{ c: 1, d: 2 }] } });
    const b = request('POST', '/d', { meta: { b: [{ d: 2, c: 1 }], a: 1 }, name: 'x' });
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
  });

  const body = { name: 'x', tags: ['a', 'b'] };
  it.each([
    ['another method', request('PUT', '/d', body)],
    ['another path (another resource)', request('POST', '/e', body)],
    ['another query', request('POST', '/d', body, { dry: 'true' })],
    ['another value', request('POST', '/d', { ...body, name: 'y' })],
    ['another array order', request('POST', '/d', { ...body, tags: ['b', 'a'] })],
    ['no body', request('POST', '/d', undefined)],
  ])('differs for %s', (_case, other) => {
    expect(requestFingerprint(other)).not.toBe(requestFingerprint(request('POST', '/d', body)));
  });

  it('is a SHA-256 in hex', () => {
    expect(requestFingerprint(request('POST', '/d', {}))).toMatch(/^[0-9a-f]{64}$/);
  });
});
