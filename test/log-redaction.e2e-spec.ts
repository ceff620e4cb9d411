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

    const routes = requestLines().map((entry) => entry.route);
    expect(routes).toEqual(expect.arrayContaining(['/x/wsk_[redacted]', '/x/wsk_[redacted]/y', '/nothing-here']));
    expect(logs.text()).not.toContain(secret());
    expect(logs.text().toLowerCase()).not.toContain(secret().toLowerCase());
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
