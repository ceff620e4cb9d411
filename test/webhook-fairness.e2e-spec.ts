import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import type { AppConfig } from '../src/config/app-config';
import { DirectoryAudit } from '../src/modules/directory/directory.audit';
import type { Database } from '../src/database/database';
import { createTenant, openTestDatabase, startTestApp, until, type TestApp, type TestTenant } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const ENDPOINTS = '/api/openapi/v1/webhook-endpoints';
const DEPARTMENTS = '/api/openapi/v1/departments';
const ORGANIZATION_SHARE = 4;
// Two instances and hundreds of events on a machine that runs other test files at once.
jest.setTimeout(120_000);

/**
 * Webhook delivery is fair across organizations: one organization's backlog and hanging or failing
 * receivers never hold up another's deliveries, on two instances, and a failing receiver is backed
 * off as a whole rather than attempt by attempt.
 */
describe('webhook delivery across organizations', () => {
  let database: Database;
  let app: TestApp;
  let otherApp: TestApp;
  const hanging = new WebhookReceiver();
  const failing = new WebhookReceiver();
  const quiet = new WebhookReceiver();
  const urls: Record<'hanging' | 'failing' | 'quiet', string> = { hanging: '', failing: '', quiet: '' };
  const held: ServerResponse[] = [];

  const settings: Partial<AppConfig> = {
    WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
    WEBHOOK_ORGANIZATION_CONCURRENCY: ORGANIZATION_SHARE,
    WEBHOOK_RESPONSE_TIMEOUT_MS: 30_000,
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
    WEBHOOK_ENDPOINT_BACKOFF: '1500ms',
    WEBHOOK_POLL_INTERVAL_MS: 100,
  };

  beforeAll(async () => {
    database = await openTestDatabase();
    [app, otherApp] = await Promise.all([startTestApp(database, settings), startTestApp(database, settings)]);
    hanging.answer = (_webhook, _request, response) => void held.push(response);
    failing.answer = (_webhook, _request, response) => {
      response.statusCode = 500;
      response.end('down');
    };
    [urls.hanging, urls.failing, urls.quiet] = await Promise.all([hanging.start(), failing.start(), quiet.start()]);
  });
  afterAll(async () => {
    for (const response of held) response.destroy();
    await Promise.all([app?.close(), otherApp?.close()]);
    await Promise.all([hanging.close(), failing.close(), quiet.close()]);
    await database?.close();
  });

  async function newEndpoint(tenant: TestTenant, url: string): Promise<string> {
    const created = await app.http().post(ENDPOINTS).set('Authorization', tenant.bearer).send({ url, event_types: ['department.created'] });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  const audit = new AuditStatements('on');

  /**
   * `count` department.created events with their deliveries, as the create's statement writes them
   * (the audit kit), one statement each: the backlog of as many creates, without their HTTP cost.
   */
  async function writeCreatedEvents(tenant: TestTenant, count: number): Promise<void> {
    for (let written = 0; written < count; written++) {
      await database.prisma.$queryRaw(
        audit.insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId: tenant.organizationId, action: DirectoryAudit.DepartmentCreated, resourceId: randomUUID(), changes: {} }),
      );
    }
  }

  /** `count` department creates, 20 at a time, spread over both instances. */
  async function createDepartments(tenant: TestTenant, count: number): Promise<void> {
    for (let done = 0; done < count; done += 20) {
      const batch = Array.from({ length: Math.min(20, count - done) }, (_, index) =>
        [app, otherApp][index % 2].http().post(DEPARTMENTS).set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: `d-${randomUUID()}` }),
      );
      for (const created of await Promise.all(batch)) expect(created.status).toBe(201);
    }
  }

  const pendingOf = async (endpointId: string) => {
    const [{ count }] = await database.prisma.$queryRaw<{ count: bigint }[]>`
      SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid AND status = 'pending'`;
    return Number(count);
  };

  it("delivers a quiet organization's event within seconds while another's 600 events wait on a receiver that never answers", async () => {
    const busy = await createTenant(database);
    await newEndpoint(busy, urls.hanging);
    await createDepartments(busy, 20);
    await writeCreatedEvents(busy, 580);
    // Both instances hold as many of the busy organization's attempts as its share allows.
    await until(() => hanging.received.length >= 2 * ORGANIZATION_SHARE);

    const other = await createTenant(database);
    await newEndpoint(other, urls.quiet);
    await createDepartments(other, 1);
    const created = Date.now();
    await until(() => quiet.received.length >= 1 || Date.now() - created > 10_000);
    const waited = Date.now() - created;

    expect(waited).toBeLessThan(5000);
    expect(quiet.received[0].payload.type).toBe('department.created');
    // Never more than its share on each of the two instances, however long its backlog.
    expect(hanging.received.length).toBe(2 * ORGANIZATION_SHARE);
  });

  it('backs a failing receiver off as a whole, probes it with one delivery, and lets its backlog through after the first success', async () => {
    const tenant = await createTenant(database);
    const endpointId = await newEndpoint(tenant, urls.failing);
    await createDepartments(tenant, 40);
    await until(() => failing.received.length >= 1);

    // The first failures back the endpoint off: what was already under way fails, and then nothing
    // more is sent but one probe per backoff, although every delivery's own retry falls due each 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const attempts = failing.received.length;
    expect(attempts).toBeLessThanOrEqual(2 * ORGANIZATION_SHARE + 4);
    expect(await pendingOf(endpointId)).toBe(40);
    const [health] = await database.prisma.$queryRaw<{ consecutive_failures: number; backoff_until: Date | null }[]>`
      SELECT consecutive_failures, backoff_until FROM webhook_endpoints WHERE id = ${endpointId}::uuid`;
    expect(health.consecutive_failures).toBeGreaterThanOrEqual(1);
    expect(health.backoff_until).not.toBeNull();

    failing.answer = (_webhook, _request, response) => {
      response.statusCode = 204;
      response.end();
    };
    await until(async () => (await pendingOf(endpointId)) === 0);
    const [recovered] = await database.prisma.$queryRaw<{ consecutive_failures: number; backoff_until: Date | null }[]>`
      SELECT consecutive_failures, backoff_until FROM webhook_endpoints WHERE id = ${endpointId}::uuid`;
    expect(recovered).toEqual({ consecutive_failures: 0, backoff_until: null });
    const [{ delivered }] = await database.prisma.$queryRaw<{ delivered: bigint }[]>`
      SELECT count(*) AS delivered FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid AND status = 'delivered'`;
    expect(Number(delivered)).toBe(40);
  });
});
