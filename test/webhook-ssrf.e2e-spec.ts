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
  ])('refuses to create an endpoint at %s', async (url) => {
    const response = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ url, event_types: ['*'] });
    expect({ status: response.status, code: response.body.code, field: response.body.details?.field, reason: response.body.details?.reason }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      field: 'url',
      reason: 'invalid_value',
    });
  });

  it('accepts a public https URL (its address is checked at delivery)', async () => {
    const response = await context.http().post(PATH).set('Authorization', context.tenant.bearer).send({ url: 'https://hooks.example.com/x', event_types: ['api_key.revoked'] });
    expect(response.status).toBe(201);
  });

  it('refuses at delivery a target that is not (or no longer) public, by address and by name, and never connects', async () => {
    const { organizationId } = context.tenant;
    // Endpoints as they would be after DNS changed or the setting was turned off: written directly.
    const urls = [`https://127.0.0.1:${port}/hook`, `https://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`, `https://[::ffff:127.0.0.1]:${port}/hook`];
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
    ]);
    expect(receiver.received).toEqual([]);
  });
});
