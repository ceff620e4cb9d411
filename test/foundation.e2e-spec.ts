import { expectErrorBody } from './support/error-body';
import { captureLogs } from './support/log-capture';
import { ProbeModule } from './support/probe.module';
import { createApiKey, openTestDatabase, revokeAndAwaitNotice, startTestApp, useTestApp } from './support/test-app';
import { DirectoryScope } from '../src/modules/directory/directory.scopes';
import { ExpertSuitesScope } from '../src/modules/expert-suites/expert-suites.scopes';
import { QuotaScope } from '../src/modules/quota/quota.scopes';

describe('foundation: auth, errors, request ids, health, OpenAPI', () => {
  const logs = captureLogs();
  const fixture = useTestApp({
    overrides: { JSON_BODY_LIMIT_BYTES: 2048, LOG_LEVEL: 'log', LOG_FORMAT: 'json' },
    extraModules: [ProbeModule],
    logDestination: logs.destination,
  });

  describe('authentication (401)', () => {
    it('returns 401 with WWW-Authenticate when the Authorization header is missing', async () => {
      const response = await fixture.http().get('/probe/quota-read');
      expectErrorBody(response, 401, 'UNAUTHENTICATED', 'unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    });

    // docs/api-conventions.md: a header that is not one "Bearer <token>" is invalid_request; a token
    // that is no key the service accepts (malformed, unknown, revoked) is invalid_token.
    it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['wsk_abc'], ['Bearer a b']])('returns 401 invalid_request for a malformed header %p', async (header) => {
      const response = await fixture.http().get('/probe/quota-read').set('Authorization', header);
      expectErrorBody(response, 401, 'UNAUTHENTICATED', 'unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_request"');
    });

    it.each([[`wsk_${'A'.repeat(40)}`], ['wsk_short'], ['not-a-key']])('returns 401 invalid_token for a key that does not exist or is malformed: %p', async (key) => {
      const response = await fixture.http().get('/probe/quota-read').set('Authorization', `Bearer ${key}`);
      expectErrorBody(response, 401, 'UNAUTHENTICATED', 'unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });

    it('returns 401 at once for a revoked key that worked a moment before', async () => {
      const key = await createApiKey(fixture.database, fixture.tenant.organizationId, [QuotaScope.Read]);
      await fixture.http().get('/probe/quota-read').set('Authorization', key.bearer).expect(200);
      await revokeAndAwaitNotice(fixture.database, key.apiKeyId, fixture.app);
      const response = await fixture.http().get('/probe/quota-read').set('Authorization', key.bearer);
      expectErrorBody(response, 401, 'UNAUTHENTICATED', 'unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });

    it('accepts a valid key and exposes its organization to the handler', async () => {
      const response = await fixture.http().get('/probe/quota-read').set('Authorization', fixture.tenant.bearer).expect(200);
      expect(response.body).toEqual({ organization_id: fixture.tenant.organizationId });
    });

    it('stores only the hash of a key', async () => {
      const stored = await fixture.database.prisma.apiKey.findUniqueOrThrow({ where: { id: fixture.tenant.apiKeyId } });
      expect(JSON.stringify(stored)).not.toContain(fixture.tenant.apiKey);
      expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('scopes (403)', () => {
    it('returns 403 naming the scope when the key lacks it', async () => {
      const key = await createApiKey(fixture.database, fixture.tenant.organizationId, [QuotaScope.Read]);
      const response = await fixture.http().post('/probe/directory-manage').set('Authorization', key.bearer).send({ text: 'hi' });
      expectErrorBody(response, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
      expect(response.body.detail).toContain(DirectoryScope.Manage);
    });

    it('does not let a read scope grant manage, nor manage grant read', async () => {
      const readOnly = await createApiKey(fixture.database, fixture.tenant.organizationId, [QuotaScope.Read]);
      const manageOnly = await createApiKey(fixture.database, fixture.tenant.organizationId, [DirectoryScope.Manage, ExpertSuitesScope.Manage]);
      await fixture.http().post('/probe/directory-manage').set('Authorization', readOnly.bearer).send({ text: 'x' }).expect(403);
      await fixture.http().get('/probe/quota-read').set('Authorization', manageOnly.bearer).expect(403);
      await fixture.http().post('/probe/directory-manage').set('Authorization', manageOnly.bearer).send({ text: 'x' }).expect(201);
    });

    it('denies a route that declares no scope, even to a key holding every scope (fail closed)', async () => {
      const response = await fixture.http().get('/probe/undeclared').set('Authorization', fixture.tenant.bearer);
      expectErrorBody(response, 403, 'INSUFFICIENT_SCOPE', 'forbidden');
    });
  });

  describe('error body', () => {
    it('answers an unknown route with 404 NOT_FOUND', async () => {
      const response = await fixture.http().get('/api/openapi/v1/nothing-here').set('Authorization', fixture.tenant.bearer);
      expectErrorBody(response, 404, 'NOT_FOUND', 'not_found');
    });

    it('answers malformed JSON with 400 INVALID_JSON', async () => {
      const response = await fixture
        .http()
        .post('/probe/directory-manage')
        .set('Authorization', fixture.tenant.bearer)
        .set('Content-Type', 'application/json')
        .send('{"text": ');
      expectErrorBody(response, 400, 'INVALID_JSON', 'bad_request');
    });

    it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await fixture
        .http()
        .post('/probe/directory-manage')
        .set('Authorization', fixture.tenant.bearer)
        .send({ text: 'x'.repeat(4096) });
      expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE', 'payload_too_large');
    });

    it('answers a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const response = await fixture
        .http()
        .post('/probe/directory-manage')
        .set('Authorization', fixture.tenant.bearer)
        .set('Content-Type', 'text/plain')
        .send('text=hi');
      expectErrorBody(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported_media_type');
    });

    it('answers a validation failure with 400 naming the field, reason and suggestion', async () => {
      const response = await fixture.http().post('/probe/directory-manage').set('Authorization', fixture.tenant.bearer).send({ text: '😀😀😀😀😀😀' });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'text', reason: 'too_long', suggestion: '😀😀😀😀😀' });
    });

    it('rejects unknown fields and missing required ones with stable reasons', async () => {
      const unknown = await fixture.http().post('/probe/directory-manage').set('Authorization', fixture.tenant.bearer).send({ text: 'a', extra: 1 });
      expect(unknown.body.details).toEqual({ field: 'extra', reason: 'unknown_field' });
      const missing = await fixture.http().post('/probe/directory-manage').set('Authorization', fixture.tenant.bearer).send({});
      expect(missing.body.details).toEqual({ field: 'text', reason: 'required' });
      const wrongType = await fixture.http().post('/probe/directory-manage').set('Authorization', fixture.tenant.bearer).send({ text: 5 });
      expect(wrongType.body.details).toEqual({ field: 'text', reason: 'invalid_type' });
    });

    it('refuses a JSON body that is not an object', async () => {
      const response = await fixture.http().post('/probe/directory-manage').set('Authorization', fixture.tenant.bearer).send([{ text: 'a' }]);
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.body.details).toEqual({ field: 'body', reason: 'invalid_type' });
    });

    it.each(['text', 'jsonb'])('answers text the database cannot store as %s (a NUL) with 400, not 500, and leaks nothing', async (as) => {
      await fixture.http().get('/probe/store-text').query({ text: 'ab', as }).expect(200);
      const response = await fixture.http().get('/probe/store-text').query({ text: 'a\u0000b', as });
      expectErrorBody(response, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(response.text).not.toMatch(/22021|22P05|SELECT|UTF8|prisma/i);
    });

    it('answers an unexpected error with 500 INTERNAL_ERROR and leaks nothing', async () => {
      const response = await fixture.http().get('/probe/boom');
      expectErrorBody(response, 500, 'INTERNAL_ERROR', 'internal_error');
      expect(response.text).not.toMatch(/secret_user|10\.1\.2\.3|password|at \w+ \(/);
    });
  });

  describe('X-Request-Id', () => {
    it('echoes the caller’s id on success and on failure', async () => {
      const ok = await fixture.http().get('/healthz').set('X-Request-Id', 'trace-123');
      expect(ok.headers['x-request-id']).toBe('trace-123');
      const failed = await fixture.http().get('/probe/quota-read').set('X-Request-Id', 'trace-456');
      expect(failed.status).toBe(401);
      expect(failed.headers['x-request-id']).toBe('trace-456');
    });

    it('generates a uuid when the caller sends none or an unusable one', async () => {
      const none = await fixture.http().get('/healthz');
      expect(none.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const unusable = await fixture.http().get('/healthz').set('X-Request-Id', 'has spaces in it');
      expect(unusable.headers['x-request-id']).not.toBe('has spaces in it');
      expect(unusable.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('access log', () => {
    it('logs method, path, status and request id of each request, and never the key', async () => {
      await fixture.http().get('/probe/quota-read').set('Authorization', fixture.tenant.bearer).set('X-Request-Id', 'log-check-1').expect(200);
      // The route takes no token parameter (400), and the line still holds no query string.
      await fixture.http().get('/probe/quota-read?token=abc').set('Authorization', fixture.tenant.bearer).set('X-Request-Id', 'log-check-2').expect(400);
      const lines = logs.entries().filter((entry) => entry.request_id === 'log-check-1' || entry.request_id === 'log-check-2');
      expect(lines).toEqual([
        expect.objectContaining({ method: 'GET', route: '/probe/quota-read', status: 200, duration_ms: expect.any(Number) }),
        expect.objectContaining({ method: 'GET', route: '/probe/quota-read', status: 400 }),
      ]);
      expect(logs.text()).not.toContain('token=abc');
      expect(logs.text()).not.toContain(fixture.tenant.apiKey);
    });
  });

  describe('health', () => {
    it('serves /healthz and /readyz without a key', async () => {
      await fixture.http().get('/healthz').expect(200, { status: 'ok' });
      await fixture.http().get('/readyz').expect(200, { status: 'ready' });
    });
  });

  describe('OpenAPI', () => {
    it('serves Swagger UI at /docs and the document at /docs-json with the bearer scheme and scopes', async () => {
      const ui = await fixture.http().get('/docs').redirects(1);
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('swagger-ui');
      const document = (await fixture.http().get('/docs-json').expect(200)).body;
      expect(document.components.securitySchemes['api-key']).toMatchObject({ type: 'http', scheme: 'bearer' });
      const operation = document.paths['/api/openapi/v1/metering-policy'].get;
      expect(operation.security).toEqual([{ 'api-key': [] }]);
      expect(operation['x-required-scope']).toBe(QuotaScope.Read);
      expect(operation.description).toContain(`\`${QuotaScope.Read}\``);
      expect(document.paths['/healthz']).toBeUndefined();
      const operationIds = Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId));
      expect(operationIds).toEqual(expect.arrayContaining(['createDepartment', 'updateExpertSuite', 'getMeteringPolicy', 'createUpload', 'getUploadContent']));
    });
  });
});

describe('readiness without a database', () => {
  it('answers /readyz with 503 SERVICE_UNAVAILABLE once the database is gone', async () => {
    const database = await openTestDatabase();
    const testApp = await startTestApp(database);
    try {
      await testApp.http().get('/readyz').expect(200);
      await database.close();
      const response = await testApp.http().get('/readyz');
      expectErrorBody(response, 503, 'SERVICE_UNAVAILABLE', 'service_unavailable');
    } finally {
      await testApp.close();
    }
  });
});
