import { randomUUID } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service';
import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ONE_PIXEL_PNG } from './support/images';
import { createTenant, openTestDatabase, startTestApp, type TestApp, type TestTenant } from './support/test-app';

const SUITES = '/api/openapi/v1/expert-suites';
const UPLOADS = '/api/openapi/v1/uploads';
const HOSTILE_HOST = 'evil.example"><img src=x onerror=alert(1)>';

describe('headers that go into the URLs the service builds (icon_url)', () => {
  let database: Database;
  let direct: TestApp;
  let behindProxy: TestApp;
  let tenant: TestTenant;
  let suiteId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    [direct, behindProxy] = await Promise.all([
      startTestApp(database),
      // The tests connect from 127.0.0.1, so they stand in for the trusted proxy.
      startTestApp(database, { TRUST_PROXY: 'loopback' }),
    ]);
    tenant = await createTenant(database);
    suiteId = (await new AdminService(database.sql).createExpertSuite(tenant.organizationId, `suite-${randomUUID().slice(0, 8)}`)).id;
    const icon = await direct.http().post(UPLOADS).set('Authorization', tenant.bearer).field('kind', 'icon').attach('file', ONE_PIXEL_PNG, 'icon.png').expect(201);
    await direct.http().patch(`${SUITES}/${suiteId}`).set('Authorization', tenant.bearer).send({ icon_upload_id: icon.body.upload_id }).expect(200);
  });

  afterAll(async () => {
    await Promise.all([direct.close(), behindProxy.close()]);
    await database.close();
  });

  const readIcon = async (app: TestApp, headers: Record<string, string>) => {
    const answer = await app.http().get(`${SUITES}/${suiteId}`).set('Authorization', tenant.bearer).set(headers).expect(200);
    return String(answer.body.icon_url);
  };

  it('builds icon_url from a valid Host', async () => {
    expect(await readIcon(direct, { Host: 'admin.example.com:8443' })).toMatch(/^http:\/\/admin\.example\.com:8443\/api\/openapi\/v1\/uploads\/[0-9a-f-]{36}\/content$/);
    expect(await readIcon(direct, { Host: '[::1]:3000' })).toMatch(/^http:\/\/\[::1\]:3000\//);
  });

  it('refuses a Host that is not a host with 400 VALIDATION_FAILED, and never reflects it', async () => {
    for (const host of [HOSTILE_HOST, 'a b', 'user@evil.example', 'evil.example/path', 'evil.example:80:80', '"quoted"']) {
      for (const path of [`${SUITES}/${suiteId}`, SUITES, '/no/such/route']) {
        const answer = await direct.http().get(path).set('Authorization', tenant.bearer).set('Host', host);
        expectErrorBody(answer, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(answer.body.details).toEqual({ field: 'Host', reason: 'invalid_format' });
        expect(answer.text).not.toContain('<img');
        expect(answer.text).not.toContain(host);
      }
    }
  });

  it('takes http or https from X-Forwarded-Proto of a trusted proxy, and ignores any other scheme there', async () => {
    expect(await readIcon(behindProxy, { Host: 'admin.example.com', 'X-Forwarded-Proto': 'https' })).toMatch(/^https:\/\/admin\.example\.com\//);
    expect(await readIcon(behindProxy, { Host: 'admin.example.com', 'X-Forwarded-Proto': 'HTTPS' })).toMatch(/^https:\/\//);
    for (const scheme of ['javascript', 'data', 'https"><img', 'ftp', '']) {
      const url = await readIcon(behindProxy, { Host: 'admin.example.com', 'X-Forwarded-Proto': scheme });
      expect(url).toMatch(/^http:\/\/admin\.example\.com\/api\/openapi\/v1\/uploads\//);
    }
  });

  it('ignores X-Forwarded-Proto when no proxy is trusted', async () => {
    expect(await readIcon(direct, { Host: 'admin.example.com', 'X-Forwarded-Proto': 'https' })).toMatch(/^http:\/\/admin\.example\.com\//);
  });
});
