import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config/app-config';
import type { Database } from '../src/database/database';
import { openTestDatabase, startTestApp, type TestApp } from './support/test-app';

const ALLOWED = 'https://admin.example.com';

describe('security headers and CORS', () => {
  let database: Database;
  let withoutCors: TestApp;
  let withCors: TestApp;

  beforeAll(async () => {
    database = await openTestDatabase();
    withoutCors = await startTestApp(database);
    withCors = await startTestApp(database, { CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` });
  });

  afterAll(async () => {
    await withoutCors.close();
    await withCors.close();
    await database.close();
  });

  it('puts helmet headers on JSON answers, errors included', async () => {
    for (const path of ['/healthz', '/no-such-route']) {
      const response = await withoutCors.http().get(path);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('gives /docs a Content-Security-Policy Swagger UI works under: same-origin scripts, inline styles, data: images', async () => {
    const response = await withoutCors.http().get('/docs/').expect(200);
    const policy = response.headers['content-security-policy'];
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("img-src 'self' data: blob:");
    expect(policy).not.toContain('upgrade-insecure-requests');
  });

  it('sends no Access-Control-* header when CORS_ORIGINS is unset, not even to a preflight', async () => {
    const simple = await withoutCors.http().get('/healthz').set('Origin', ALLOWED);
    const preflight = await withoutCors.http().options('/departments').set('Origin', ALLOWED).set('Access-Control-Request-Method', 'POST');
    for (const response of [simple, preflight]) {
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('answers an allowed origin with CORS headers, exposing the headers clients read', async () => {
    const response = await withCors.http().get('/healthz').set('Origin', ALLOWED).expect(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(response.headers['access-control-expose-headers']).toBe('X-Request-Id,Idempotent-Replayed,Retry-After,RateLimit,RateLimit-Policy,ETag');
    expect(response.headers.vary).toMatch(/Origin/);
  });

  it('answers an allowed origin\'s preflight with the methods and headers clients send', async () => {
    const response = await withCors
      .http()
      .options('/departments')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization,content-type,if-match,idempotency-key')
      .expect(204);
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(response.headers['access-control-allow-methods']).toBe('GET,HEAD,POST,PUT,PATCH,DELETE');
    expect(response.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,Idempotency-Key,If-Match,If-None-Match,X-Request-Id');
  });

  it('allows exactly the methods the routes answer (every method of the OpenAPI document, and HEAD)', async () => {
    const document = (await withCors.http().get('/docs-json').expect(200)).body as { paths: Record<string, object> };
    const documented = new Set(Object.values(document.paths).flatMap((pathItem) => Object.keys(pathItem).map((method) => method.toUpperCase())));
    const preflight = await withCors.http().options('/departments').set('Origin', ALLOWED).set('Access-Control-Request-Method', 'GET').expect(204);
    expect(preflight.headers['access-control-allow-methods'].split(',').sort()).toEqual([...documented, 'HEAD'].sort());
  });

  it('states in docs/configuration.md the very methods and headers it sends', async () => {
    const row = readFileSync(join(__dirname, '..', 'docs', 'configuration.md'), 'utf8').split('\n').find((line) => line.startsWith('| `CORS_ORIGINS` |'))!;
    const listed = (label: string) => [...new RegExp(`${label} ((?:\`[\\w-]+\`(?:, | and )?)+)`).exec(row)![1].matchAll(/`([\w-]+)`/g)].map((match) => match[1]).join(',');
    const preflight = await withCors.http().options('/departments').set('Origin', ALLOWED).set('Access-Control-Request-Method', 'GET').expect(204);
    const simple = await withCors.http().get('/healthz').set('Origin', ALLOWED).expect(200);
    expect(listed('use the methods')).toBe(preflight.headers['access-control-allow-methods']);
    expect(listed('send the headers')).toBe(preflight.headers['access-control-allow-headers']);
    expect(listed('read the headers')).toBe(simple.headers['access-control-expose-headers']);
  });

  it('gives another origin no Access-Control-Allow-Origin', async () => {
    const simple = await withCors.http().get('/healthz').set('Origin', 'https://evil.example.com').expect(200);
    const preflight = await withCors.http().options('/departments').set('Origin', 'https://evil.example.com').set('Access-Control-Request-Method', 'POST');
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([['https://admin.example.com/'], ['admin.example.com'], ['https://a.example.com,ftp://b.example.com'], ['https://a.example.com/app']])(
    'refuses CORS_ORIGINS=%p at start',
    (value) => {
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS must be comma-separated http\(s\) origins/);
    },
  );

  it('reads an empty CORS_ORIGINS as unset', () => {
    expect(loadConfig({ CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
  });
});
