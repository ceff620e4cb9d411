import { randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { newWebhookSecret } from '../src/modules/webhooks/webhook-secret';
import { until, useTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { DirectoryAudit } from '../src/modules/directory/directory.audit';

const PATH = '/api/openapi/v1/webhook-endpoints';

/** With WEBHOOK_ALLOW_INSECURE_TARGETS at its default (false): only https to public addresses. */
describe('webhook targets (SSRF rules)', () => {
  const context = useTestApp({ overrides: { WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_POLL_INTERVAL_MS: 100 } });
  const receiver = new WebhookReceiver();
  let port: string;

  beforeAll(async () => {
    port = new URL(await receiver.start()).port;
  });
  afterAll(async () => {
    await receiver.close();
  });

  const expectUrlRefused = async (url: string, reason: string) => {
    const response = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ url, event_types: ['*'] });
    expect({ url, status: response.status, code: response.body.code, field: response.body.details?.field, reason: response.body.details?.reason }).toEqual({
      url,
      status: 400,
      code: 'VALIDATION_FAILED',
      field: 'url',
      reason,
    });
    return response.body.detail as string;
  };

  it('names the setting that admits local receivers when it refuses http or a loopback address', async () => {
    expect(await expectUrlRefused('http://hooks.example.com/', 'invalid_value')).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS=true');
    expect(await expectUrlRefused('https://127.0.0.1/hook', 'invalid_value')).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS=true');
  });

  it.each([
    'http://hooks.example.com/',
    'http://127.0.0.1/hook',
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://192.168.1.10/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[fd00::1]/hook',
    'https://[fe80::1]/hook',
    'https://0.0.0.0/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    // IPv6 literals carrying a non-public IPv4 address: judged by that address.
    'https://[::127.0.0.1]:18408/h',
    'https://[::7f00:1]/hook',
    'https://[::169.254.169.254]/latest/meta-data',
    'https://[::10.0.0.1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[64:ff9b::127.0.0.1]/hook',
    'https://[64:ff9b::192.168.1.10]/hook',
    // 6to4 and Teredo tunnel to wherever they say: never a target, whatever they carry.
    'https://[2002:7f00:1::1]/hook',
    'https://[2002:808:808::1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
  ])('refuses to create an endpoint at %s', async (url) => {
    await expectUrlRefused(url, 'invalid_value');
  });

  it.each([
    ['https://hooks.example.com/a\r\n X-Injected: 1', 'invalid_format'],
    ['https://hooks.example.com/a\tb', 'invalid_format'],
    ['https://hooks.exa\nmple.com/a', 'invalid_format'],
    ['https://hooks.example.com/a\u007f', 'invalid_format'],
    ['https://hooks.example.com/a\u0085', 'invalid_format'],
    ['https:\\\\hooks.example.com\\x', 'invalid_format'],
    ['https:\\hooks.example.com/x', 'invalid_format'],
    ['https://hooks.example.com/a\\b', 'invalid_format'],
    ['https://hooks.example.com/a?b=\\', 'invalid_format'],
    ['https://hooks.example.com:0/hook', 'invalid_value'],
    ['https://hooks.example.com:000/hook', 'invalid_value'],
    ['https://[2606:4700:4700::1111]:0/hook', 'invalid_value'],
  ])('refuses the malformed URL %j (%s), whatever new URL would make of it', async (url, reason) => {
    await expectUrlRefused(url, reason);
  });

  it.each(['https://hooks.example.com/x', 'https://[::ffff:8.8.8.8]/x', 'https://[::8.8.8.8]/x', 'https://[64:ff9b::8.8.8.8]/x'])(
    'accepts the public https URL %s (a name is checked again at delivery)',
    async (url) => {
      const response = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ url, event_types: ['api_key.revoked'] });
      expect(response.status).toBe(201);
    },
  );

  it('accepts a host reserved for examples, and fails each delivery to it at once, without sending or retrying', async () => {
    const created = await context
      .http()
      .post(PATH)
      .set('Authorization', context.tenant.bearer)
      .send({ url: 'https://hooks.example.com/workspace-admin', event_types: ['webhook_endpoint.created'] })
      .expect(201);
    const deliveries = async () =>
      (await context.http().get(`${PATH}/${created.body.id}/deliveries`).set('Authorization', context.tenant.bearer).expect(200)).body.items as {
        status: string;
        attempts: number;
        last_error: string | null;
        next_attempt_at: string | null;
      }[];
    await until(async () => (await deliveries())[0]?.status === 'failed');
    // The schedule here retries after 100 ms: a second attempt would have come long before the poll ends.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null });
    expect(delivery.last_error).toContain('hooks.example.com is a name reserved for examples (RFC 2606)');
  });

  it('refuses at delivery a target that is not (or no longer) public, by address and by name, and never connects', async () => {
    const { organizationId } = context.tenant;
    // Endpoints as they would be after DNS changed or the setting was turned off: written directly.
    const urls = [
      `https://127.0.0.1:${port}/hook`,
      `https://localhost:${port}/hook`,
      `http://127.0.0.1:${port}/hook`,
      `https://[::ffff:127.0.0.1]:${port}/hook`,
      `https://[::127.0.0.1]:${port}/hook`,
      `https://[64:ff9b::127.0.0.1]:${port}/hook`,
      'https://hooks.example.com:0/hook',
    ];
    const endpointIds = urls.map(() => randomUUID());
    for (const [index, url] of urls.entries()) {
      await context.database.prisma.$executeRaw`INSERT INTO webhook_endpoints (id, organization_id, url, event_types, secret)
        VALUES (${endpointIds[index]}::uuid, ${organizationId}::uuid, ${url}, ARRAY['department.created'], ${newWebhookSecret()})`;
    }
    await context.database.prisma.$queryRaw(
      context.app.app.get(AuditStatements).insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId, action: DirectoryAudit.DepartmentCreated, resourceId: 'd', changes: {} }),
    );
    const states = async () =>
      context.database.prisma.$queryRaw<{ endpointId: string; status: string; lastError: string | null; attempts: number }[]>`
        SELECT endpoint_id AS "endpointId", status, last_error AS "lastError", attempts FROM webhook_deliveries WHERE endpoint_id = ANY(${endpointIds}::uuid[])`;
    await until(async () => (await states()).filter((state) => state.status === 'failed').length === urls.length);
    const byEndpoint = new Map((await states()).map((state) => [state.endpointId, state]));
    expect(endpointIds.map((id) => byEndpoint.get(id)?.lastError)).toEqual([
      'refused: the address is not public',
      'refused: localhost resolves to an address that is not public',
      'refused: http: targets are not allowed',
      'refused: the address is not public',
      'refused: the address is not public',
      'refused: the address is not public',
      'refused: port 0',
    ]);
    expect(receiver.received).toEqual([]);
  });
});
