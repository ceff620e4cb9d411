import { newWebhookSecret } from '../src/modules/webhooks/webhook-secret';
import { captureLogs } from './support/log-capture';
import { ProbeModule } from './support/probe.module';
import { useTestApp } from './support/test-app';

describe('no API key reaches the logs through a URL or a header', () => {
  const logs = captureLogs();
  const fixture = useTestApp({ overrides: { LOG_LEVEL: 'log', LOG_FORMAT: 'json' }, extraModules: [ProbeModule], logDestination: logs.destination });

  /** The key without its public prefix: what must never be written. */
  const secret = () => fixture.tenant.apiKey.slice('wsk_'.length);
  const requestLines = () => logs.entries().filter((entry) => entry.method !== undefined && entry.status !== undefined);

  it('redacts a key put into the path of an unmatched route, encoded or not, and logs no query string', async () => {
    const key = fixture.tenant.apiKey;
    const encoded = `%77%73%6B_${key.slice(4)}`;
    await fixture.http().get(`/x/${key}`).set('Authorization', fixture.tenant.bearer).expect(404);
    await fixture.http().get(`/x/${encoded}/y`).expect(404);
    await fixture.http().get(`/x/${key.toUpperCase()}%ff`).expect(404);
    await fixture.http().get(`/nothing-here?api_key=${key}&token=${key}`).expect(404);

    const routes = requestLines().map((entry) => String(entry.route));
    // Everything after the prefix goes: what follows a secret in the path may still be part of it.
    expect(routes).toEqual(expect.arrayContaining(['/x/wsk_[redacted]', '/nothing-here']));
    expect(routes.filter((route) => route.startsWith('/x/'))).toEqual(['/x/wsk_[redacted]', '/x/wsk_[redacted]', '/x/wsk_[redacted]']);
    expect(logs.text()).not.toContain(secret());
    expect(logs.text().toLowerCase()).not.toContain(secret().toLowerCase());
  });

  it('redacts a webhook signing secret put into the path of an unmatched route, its base64 slashes and all', async () => {
    const secret = newWebhookSecret();
    // Base64 holds `/`: a secret may span several path segments.
    const slashed = 'whsec_Qx9+Zr/Kp7Tw/Vm3Yq=';
    await fixture.http().get(`/s/${secret}`).set('Authorization', fixture.tenant.bearer).expect(404);
    await fixture.http().get(`/s/${encodeURIComponent(secret)}`).expect(404);
    await fixture.http().get(`/s/%77hsec_${secret.slice('whsec_'.length)}%ff`).expect(404);
    await fixture.http().get(`/t/${slashed}`).expect(404);
    await fixture.http().get(`/t/${slashed.toUpperCase()}`).expect(404);

    const routes = requestLines().map((entry) => String(entry.route));
    expect(routes.filter((route) => /^\/[st]\//.test(route))).toEqual([
      '/s/whsec_[redacted]',
      '/s/whsec_[redacted]',
      '/s/whsec_[redacted]',
      '/t/whsec_[redacted]',
      '/t/whsec_[redacted]',
    ]);
    const text = logs.text();
    const parts = [secret.slice('whsec_'.length), ...secret.slice('whsec_'.length).split('/'), ...slashed.slice('whsec_'.length).split('/')];
    for (const part of parts.filter((piece) => piece.length >= 5)) {
      expect(text).not.toContain(part);
      expect(text.toLowerCase()).not.toContain(part.toLowerCase());
    }
  });

  it('takes no secret as the request id: a caller X-Request-Id holding one is replaced by a new id, neither logged nor echoed', async () => {
    const webhookSecret = newWebhookSecret();
    for (const given of [`trace-${fixture.tenant.apiKey}`, webhookSecret, `x-${webhookSecret.toUpperCase()}`]) {
      const response = await fixture.http().get('/healthz').set('X-Request-Id', given).expect(200);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    await fixture.http().get('/healthz').set('X-Request-Id', 'trace-wsk-is-no-key').expect(200).expect('X-Request-Id', 'trace-wsk-is-no-key');
    expect(logs.text()).not.toContain(secret());
    expect(logs.text().toLowerCase()).not.toContain(webhookSecret.slice('whsec_'.length).toLowerCase());
  });

  it('logs matched routes as their pattern, never the values or the query string', async () => {
    await fixture.http().get(`/api/openapi/v1/metering-policy?api_key=${fixture.tenant.apiKey}`).set('Authorization', fixture.tenant.bearer).expect(400);
    await fixture.http().get('/api/openapi/v1/metering-policy').set('Authorization', `Bearer ${fixture.tenant.apiKey}`).expect(200);
    await fixture.http().get('/probe/boom').set('Authorization', fixture.tenant.bearer).expect(500);
    expect(requestLines().map((entry) => entry.route)).toEqual(expect.arrayContaining(['/api/openapi/v1/metering-policy', '/probe/boom']));
    // The 500 is logged with its stack, still without the key.
    expect(logs.entries().some((entry) => entry.level === 'error')).toBe(true);
    expect(logs.text()).not.toContain(secret());
    expect(logs.text()).not.toMatch(/authorization/i);
  });
});
