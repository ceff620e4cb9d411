import helmet from 'helmet';
import { headerChangesOf } from './security-headers';

describe('headerChangesOf', () => {
  it("records the headers helmet writes and the one it removes, as helmet's own defaults say", () => {
    const { set, removed } = headerChangesOf(helmet());
    const headers = Object.fromEntries(set.map(([name, value]) => [name.toLowerCase(), value]));
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(headers['content-security-policy']).toContain("default-src 'self'");
    expect(removed.map((name) => name.toLowerCase())).toEqual(['x-powered-by']);
  });

  it('refuses a middleware that does not finish at once, since its headers could depend on the request', () => {
    expect(() => headerChangesOf((_request, _response, next) => setImmediate(next))).toThrow(/did not finish synchronously/);
  });

  it('passes on an error the middleware reports', () => {
    expect(() => headerChangesOf((_request, _response, next) => next(new Error('bad directive')))).toThrow('bad directive');
  });
});
