import { randomUUID } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements, WEBHOOK_DELIVERIES_CHANNEL } from '../src/common/audit/audit-event';
import type { AppConfig } from '../src/config/app-config';
import type { Database } from '../src/database/database';
import { createApiKey, createTenant, openTestDatabase, startTestApp, until, type TestApp, type TestTenant } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { ExpertSuitesAudit } from '../src/modules/expert-suites/expert-suites.audit';

const ENDPOINTS = '/api/openapi/v1/webhook-endpoints';
const DEPARTMENTS = '/api/openapi/v1/departments';
const WITHOUT_WORKER: Partial<AppConfig> = { WEBHOOK_WORKER_ENABLED: 'false', WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_POLL_INTERVAL_MS: 100 };

/**
 * The outbox as the writers fill it: every audited statement queues its event's deliveries itself
 * (no trigger), and wakes the workers only when it queued any and DATABASE_NOTIFICATIONS is on.
 */
describe('webhook outbox', () => {
  let database: Database;
  // Neither instance delivers, so what the writes queued stays in the outbox to be looked at.
  let quiet: TestApp;
  let loud: TestApp;
  const receiver = new WebhookReceiver();
  let receiverUrl: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    [quiet, loud] = await Promise.all([
      startTestApp(database, { ...WITHOUT_WORKER, DATABASE_NOTIFICATIONS: 'off' }),
      startTestApp(database, { ...WITHOUT_WORKER, DATABASE_NOTIFICATIONS: 'on' }),
    ]);
    receiverUrl = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([quiet?.close(), loud?.close()]);
    await receiver.close();
    await database?.close();
  });

  async function newEndpoint(via: TestApp, tenant: TestTenant, eventTypes: string[]): Promise<string> {
    const created = await via.http().post(ENDPOINTS).set('Authorization', tenant.bearer).send({ url: receiverUrl, event_types: eventTypes });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  const createDepartment = async (via: TestApp, tenant: TestTenant) => {
    const created = await via.http().post(DEPARTMENTS).set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: `dept-${randomUUID().slice(0, 8)}` });
    expect(created.status).toBe(201);
    return created.body.department_id as string;
  };

  /** Each event of the organization as `action: the endpoints it was queued to`, by the names given to their ids. */
  async function queued(organizationId: string, names: Record<string, string>): Promise<string[]> {
    const rows = await database.prisma.$queryRaw<{ action: string; endpoints: string[] }[]>`
      SELECT e.action, array_remove(array_agg(d.endpoint_id::text), NULL) AS endpoints
      FROM audit_events e LEFT JOIN webhook_deliveries d ON d.organization_id = e.organization_id AND d.event_id = e.id
      WHERE e.organization_id = ${organizationId}::uuid GROUP BY e.organization_id, e.id`;
    return rows.map(({ action, endpoints }) => `${action}: ${endpoints.map((id) => names[id] ?? id).sort().join(' ')}`).sort();
  }

  it('queues, in the statement of each write, one delivery per endpoint subscribed to its action, and none to a deleted endpoint', async () => {
    const tenant = await createTenant(database);
    const other = await createTenant(database);
    const admin = new AdminService(database.sql, undefined, 'off');
    const names: Record<string, string> = {};
    names[await newEndpoint(quiet, other, ['*'])] = 'other';
    names[await newEndpoint(quiet, tenant, ['*'])] = 'all';
    names[await newEndpoint(quiet, tenant, ['department.created'])] = 'departments';
    names[await newEndpoint(quiet, tenant, ['expert_suite.updated', 'webhook_endpoint.deleted'])] = 'suites';
    const doomed = await newEndpoint(quiet, tenant, ['*']);
    names[doomed] = 'doomed';

    await createDepartment(quiet, tenant);
    const suite = await admin.createExpertSuite(tenant.organizationId, `suite-${randomUUID().slice(0, 8)}`);
    expect((await quiet.http().patch(`/api/openapi/v1/expert-suites/${suite.id}`).set('Authorization', tenant.bearer).send({ display_name: 'Renamed' })).status).toBe(200);
    const key = await createApiKey(database, tenant.organizationId, ['admin.v1.user-directory.read']);
    await admin.revokeApiKey(key.apiKeyId);
    await admin.revokeApiKey(key.apiKeyId);

    expect(await queued(tenant.organizationId, names)).toEqual([
      'api_key.created: ',
      'api_key.created: all doomed',
      'api_key.revoked: all doomed',
      'department.created: all departments doomed',
      'expert_suite.created: all doomed',
      'expert_suite.updated: all doomed suites',
      // Each endpoint subscribed to its own creation gets it.
      'webhook_endpoint.created: all',
      'webhook_endpoint.created: all',
      'webhook_endpoint.created: all',
      'webhook_endpoint.created: all doomed',
    ]);
    expect(await queued(other.organizationId, names)).toEqual(['api_key.created: ', 'webhook_endpoint.created: other']);

    // Its deliveries go with it, and it does not get its own deletion (it subscribes to '*').
    expect((await quiet.http().delete(`${ENDPOINTS}/${doomed}`).set('Authorization', tenant.bearer)).status).toBe(204);
    expect((await queued(tenant.organizationId, names)).filter((line) => line.startsWith('webhook_endpoint.deleted') || line.includes('doomed'))).toEqual([
      'webhook_endpoint.deleted: all suites',
    ]);
  });

  it('sends NOTIFY only for a statement that queued deliveries, once per statement, and none with DATABASE_NOTIFICATIONS=off', async () => {
    const notified: string[] = [];
    const subscription = await database.listen(WEBHOOK_DELIVERIES_CHANNEL, { onNotify: (payload) => notified.push(payload), onListening: () => undefined });
    try {
      const tenant = await createTenant(database);
      const without = await createTenant(database);
      // Their creations queue one delivery each (to the '*' endpoint), with no NOTIFY (notifications off).
      await newEndpoint(quiet, tenant, ['*']);
      await newEndpoint(quiet, tenant, ['department.created']);
      const countDeliveries = async (organizationId: string) =>
        Number((await database.prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) FROM webhook_deliveries WHERE organization_id = ${organizationId}::uuid`)[0].count);

      // Notifications off: two deliveries queued, no NOTIFY.
      await createDepartment(quiet, tenant);
      expect(await countDeliveries(tenant.organizationId)).toBe(2 + 2);
      // Notifications on, but no endpoint to queue to: no NOTIFY.
      await database.prisma.$queryRaw(
        loud.app.get(AuditStatements).insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId: without.organizationId, action: ExpertSuitesAudit.CategoryCreated, resourceId: 'c', changes: {} }),
      );
      await createDepartment(loud, without);
      expect(await countDeliveries(without.organizationId)).toBe(0);
      // Notifications on and two deliveries queued: one NOTIFY, delivered after any the writes above had sent.
      await createDepartment(loud, tenant);
      expect(await countDeliveries(tenant.organizationId)).toBe(2 + 2 + 2);
      await until(() => notified.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(notified).toEqual(['']);
    } finally {
      await subscription.close();
    }
  });

  it('delivers nothing from an instance with WEBHOOK_WORKER_ENABLED=false, and without notifications the poll delivers', async () => {
    const tenant = await createTenant(database);
    await newEndpoint(quiet, tenant, ['department.created']);
    const departmentId = await createDepartment(loud, tenant);
    const delivery = async () =>
      (
        await database.prisma.$queryRaw<{ status: string; attempts: number }[]>`
          SELECT d.status, d.attempts FROM webhook_deliveries d JOIN audit_events e ON e.id = d.event_id
          WHERE e.organization_id = ${tenant.organizationId}::uuid AND e.action = 'department.created'`
      )[0];
    // Ten poll intervals of an instance that would deliver; neither instance here does.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect({ received: receiver.received.length, delivery: await delivery() }).toEqual({ received: 0, delivery: { status: 'pending', attempts: 0 } });

    const polling = await startTestApp(database, { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_POLL_INTERVAL_MS: 100, DATABASE_NOTIFICATIONS: 'off' });
    try {
      await until(() => receiver.received.some((webhook) => webhook.payload.data.resource_id === departmentId));
      await until(async () => (await delivery()).status === 'delivered');
    } finally {
      await polling.close();
    }
  });
});
