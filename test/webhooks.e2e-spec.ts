import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import type { AuditAction } from '../src/common/audit/audit-actions';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Metrics } from '../src/common/metrics/metrics';
import type { AppConfig } from '../src/config/app-config';
import type { Database } from '../src/database/database';
import type { paths } from './client/schema';
import { createApiKey, createTenant, listenOnLoopback, openTestDatabase, startTestApp, until, type TestApp, type TestTenant } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { DirectoryAudit } from '../src/modules/directory/directory.audit';

const PATH = '/api/openapi/v1/webhook-endpoints';
// Fast retries for the tests; the real schedule is the setting's default (retry-policy.spec.ts).
// Long timeouts: the receiver shares this process's event loop with two instances and the embedded
// database, and on a loaded machine an answer can take seconds; a timed-out attempt is retried, and
// its event reaches the receiver twice (at least once, as documented), which is not what these
// tests are about.
const FAST: Partial<AppConfig> = {
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
  WEBHOOK_ENDPOINT_BACKOFF: '300ms',
  WEBHOOK_POLL_INTERVAL_MS: 100,
  WEBHOOK_CONNECT_TIMEOUT_MS: 60_000,
  WEBHOOK_RESPONSE_TIMEOUT_MS: 60_000,
};

describe('webhooks', () => {
  let database: Database;
  let app: TestApp;
  let otherApp: TestApp;
  let baseUrl: string;
  const receiver = new WebhookReceiver();
  let receiverUrl: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    [app, otherApp] = await Promise.all([startTestApp(database, FAST), startTestApp(database, FAST)]);
    baseUrl = await listenOnLoopback(app);
    receiverUrl = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([app?.close(), otherApp?.close()]);
    await receiver.close();
    await database?.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.secrets = [];
    receiver.answer = (_webhook, _request, response) => {
      response.statusCode = 204;
      response.end();
    };
  });

  const clientFor = (tenant: TestTenant): Client<paths> => createClient<paths>({ baseUrl, headers: { Authorization: tenant.bearer } });

  async function newEndpoint(tenant: TestTenant, eventTypes: string[] = ['department.created'], url = receiverUrl) {
    const created = await clientFor(tenant).POST('/api/openapi/v1/webhook-endpoints', { body: { url, event_types: eventTypes as never, description: 'test' } });
    expect(created.response.status).toBe(201);
    return created.data!;
  }

  const audit = new AuditStatements('on');
  const auditEvent = (organizationId: string, action: AuditAction = DirectoryAudit.DepartmentCreated) =>
    audit.insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId, action, resourceId: randomUUID(), changes: { name: { old: null, new: 'Research' } } });

  /** An audit event and its deliveries, written as the writers of changes write them; its id. */
  async function insertAuditEvent(organizationId: string, action?: AuditAction): Promise<string> {
    const [{ id }] = await database.prisma.$queryRaw<{ id: string }[]>(auditEvent(organizationId, action));
    return id;
  }

  const deliveriesOf = async (tenant: TestTenant, endpointId: string) =>
    (await clientFor(tenant).GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpointId } } })).data!.items;

  describe('endpoints', () => {
    it('creates an endpoint with a secret shown once, replays it by Idempotency-Key, and reads, lists and deletes it', async () => {
      const tenant = await createTenant(database);
      const client = clientFor(tenant);
      const key = randomUUID();
      const body = { url: receiverUrl, event_types: ['department.created', 'api_key.revoked'] as never, description: '  HR sync  ' };
      const first = await client.POST('/api/openapi/v1/webhook-endpoints', { params: { header: { 'Idempotency-Key': key } }, body });
      expect(first.response.status).toBe(201);
      expect(first.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: receiverUrl,
        event_types: ['department.created', 'api_key.revoked'],
        description: 'HR sync',
        created_at: expect.stringMatching(/Z$/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      });
      expect(Buffer.from(first.data!.secret.slice(6), 'base64')).toHaveLength(32);
      const replay = await client.POST('/api/openapi/v1/webhook-endpoints', { params: { header: { 'Idempotency-Key': key } }, body });
      expect({ status: replay.response.status, data: replay.data, replayed: replay.response.headers.get('Idempotent-Replayed') }).toEqual({ status: 201, data: first.data, replayed: 'true' });
      // Without a key, each request creates one.
      const second = await newEndpoint(tenant);
      expect(second.id).not.toBe(first.data!.id);

      const { secret, ...endpoint } = first.data!;
      const read = await client.GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id.toUpperCase() } } });
      expect({ status: read.response.status, data: read.data }).toEqual({ status: 200, data: endpoint });
      expect(JSON.stringify(read.data)).not.toContain(secret);

      const page1 = await client.GET('/api/openapi/v1/webhook-endpoints', { params: { query: { page_size: 1 } } });
      expect(page1.data!.items.map((item) => item.id)).toEqual([endpoint.id]);
      const page2 = await client.GET('/api/openapi/v1/webhook-endpoints', { params: { query: { page_size: 1, page_token: page1.data!.next_page_token! } } });
      expect(page2.data).toEqual({ items: [expect.objectContaining({ id: second.id })], next_page_token: null });

      const removed = await client.DELETE('/api/openapi/v1/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id } } });
      expect(removed.response.status).toBe(204);
      const gone = await client.GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id } } });
      expect({ status: gone.response.status, code: gone.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
      const again = await client.DELETE('/api/openapi/v1/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpoint.id } } });
      expect(again.response.status).toBe(404);
    });

    it.each([
      [{ url: 'ftp://hooks.example.com/', event_types: ['*'] }, 'url', 'invalid_value'],
      [{ url: 'not a url', event_types: ['*'] }, 'url', 'invalid_format'],
      [{ url: 'https://user:pw@hooks.example.com/', event_types: ['*'] }, 'url', 'invalid_value'],
      [{ event_types: ['*'] }, 'url', 'required'],
      [{ url: 'https://hooks.example.com/' }, 'event_types', 'required'],
      [{ url: 'https://hooks.example.com/', event_types: [] }, 'event_types', 'too_short'],
      [{ url: 'https://hooks.example.com/', event_types: ['department.archived'] }, 'event_types', 'invalid_value'],
      [{ url: 'https://hooks.example.com/', event_types: ['*', '*'] }, 'event_types', 'duplicate'],
      [{ url: 'https://hooks.example.com/', event_types: 'department.created' }, 'event_types', 'invalid_type'],
      [{ url: 'https://hooks.example.com/', event_types: ['*'], secret: 'whsec_mine' }, 'secret', 'unknown_field'],
    ])('refuses %j: 400 VALIDATION_FAILED naming %s (%s)', async (body, field, reason) => {
      const tenant = await createTenant(database);
      const response = await app.http().post(PATH).set('Authorization', tenant.bearer).send(body);
      expect({ status: response.status, code: response.body.code, field: response.body.details?.field, reason: response.body.details?.reason }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        field,
        reason,
      });
      expect((await app.http().get(PATH).set('Authorization', tenant.bearer)).body.items).toEqual([]);
    });

    it('keeps an organization at WEBHOOK_ENDPOINTS_PER_ORGANIZATION endpoints, with 30 creates at once on two instances', async () => {
      const tenant = await createTenant(database);
      const other = await createTenant(database);
      const creates = Array.from({ length: 30 }, (_, index) =>
        [app, otherApp][index % 2].http().post(PATH).set('Authorization', tenant.bearer).send({ url: receiverUrl, event_types: ['api_key.revoked'] }),
      );
      const answers = await Promise.all(creates);
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20);
      const refused = answers.filter((answer) => answer.status !== 201);
      expect(refused).toHaveLength(10);
      for (const answer of refused) {
        expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 422, code: 'WEBHOOK_ENDPOINT_LIMIT_REACHED' });
        expect(answer.body.detail).toContain('20 webhook endpoints');
      }
      const [{ endpoints, events }] = await database.prisma.$queryRaw<{ endpoints: bigint; events: bigint }[]>`
        SELECT (SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${tenant.organizationId}::uuid) AS endpoints,
          (SELECT count(*) FROM audit_events WHERE organization_id = ${tenant.organizationId}::uuid AND action = 'webhook_endpoint.created') AS events`;
      expect({ endpoints, events }).toEqual({ endpoints: 20n, events: 20n });
      // Another organization is not limited by this one's endpoints; a deleted endpoint frees its place.
      await newEndpoint(other);
      const removed = await app.http().delete(`${PATH}/${answers.find((answer) => answer.status === 201)!.body.id}`).set('Authorization', tenant.bearer);
      expect(removed.status).toBe(204);
      expect((await app.http().post(PATH).set('Authorization', tenant.bearer).send({ url: receiverUrl, event_types: ['*'] })).status).toBe(201);
    });

    it("hides another organization's endpoints and deliveries, and needs the webhooks scope", async () => {
      const tenant = await createTenant(database);
      const other = await createTenant(database);
      const theirs = await newEndpoint(other);
      for (const request of [
        app.http().get(`${PATH}/${theirs.id}`),
        app.http().delete(`${PATH}/${theirs.id}`),
        app.http().post(`${PATH}/${theirs.id}/rotate-secret`),
        app.http().get(`${PATH}/${theirs.id}/deliveries`),
        app.http().post(`${PATH}/deliveries/${randomUUID()}/redeliver`),
      ]) {
        expect((await request.set('Authorization', tenant.bearer)).status).toBe(404);
      }
      const readOnly = await createApiKey(database, tenant.organizationId, ['admin.v1.user-directory.read']);
      const refused = await app.http().get(PATH).set('Authorization', readOnly.bearer);
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    });
  });

  describe('delivery', () => {
    it("delivers the endpoint's own created event, signed, in the Standard Webhooks shape, with the audit event as data", async () => {
      const tenant = await createTenant(database);
      const requestId = `req-${randomUUID()}`;
      const created = await app.http().post(PATH).set('Authorization', tenant.bearer).set('X-Request-Id', requestId).send({ url: receiverUrl, event_types: ['*'] });
      expect(created.status).toBe(201);
      receiver.secrets = [created.body.secret];
      await until(() => receiver.received.length >= 1);
      const [webhook] = receiver.received;
      expect(webhook.verifiedBy).toEqual([0]);
      expect(webhook.contentType).toBe('application/json');
      expect(Math.abs(Number(webhook.timestamp) - Date.now() / 1000)).toBeLessThan(30);
      expect(webhook.payload).toEqual({
        type: 'webhook_endpoint.created',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: {
          event_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
          occurred_at: webhook.payload.timestamp,
          action: 'webhook_endpoint.created',
          resource_type: 'webhook_endpoint',
          resource_id: created.body.id,
          actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
          request_id: requestId,
          revision_before: null,
          revision_after: null,
          changes: {
            url: { old: null, new: receiverUrl },
            event_types: { old: null, new: ['*'] },
            description: { old: null, new: null },
            secret: { old: null, new: 'redacted' },
          },
        },
      });
      expect(webhook.body).not.toContain(created.body.secret.slice(6));
      // The worker records the answer just after the receiver sent it.
      await until(async () => (await deliveriesOf(tenant, created.body.id))[0]?.status === 'delivered');
      const [delivery] = await deliveriesOf(tenant, created.body.id);
      expect(delivery).toEqual(expect.objectContaining({ delivery_id: webhook.id, event_id: webhook.payload.data.event_id, status: 'delivered', attempts: 1, last_response_status: 204 }));
    });

    it('delivers an event written to audit_events within seconds, only to endpoints subscribed to its action', async () => {
      const tenant = await createTenant(database);
      const subscribed = await newEndpoint(tenant, ['department.created']);
      const elsewhere = await newEndpoint(tenant, ['api_key.revoked'], `${receiverUrl}?elsewhere`);
      receiver.secrets = [subscribed.secret];
      const eventId = await insertAuditEvent(tenant.organizationId);
      const started = Date.now();
      await until(() => receiver.received.length >= 1);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(receiver.received.map((webhook) => [webhook.payload.type, webhook.payload.data.event_id, webhook.verifiedBy])).toEqual([['department.created', eventId, [0]]]);
      expect(await deliveriesOf(tenant, elsewhere.id)).toEqual([]);
    });

    it('retries a failed attempt with the same webhook-id, and records the answer of each', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      receiver.secrets = [endpoint.secret];
      receiver.answer = (_webhook, _request, response) => {
        response.statusCode = receiver.received.length === 1 ? 500 : 200;
        response.end(receiver.received.length === 1 ? 'boom' : 'ok');
      };
      await insertAuditEvent(tenant.organizationId);
      await until(async () => (await deliveriesOf(tenant, endpoint.id))[0]?.status === 'delivered');
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1].id).toBe(receiver.received[0].id);
      expect(receiver.received.every((webhook) => webhook.verifiedBy.includes(0))).toBe(true);
      expect(receiver.received[1].receivedAt - receiver.received[0].receivedAt).toBeGreaterThanOrEqual(250);
      const [delivery] = await deliveriesOf(tenant, endpoint.id);
      expect(delivery).toEqual(expect.objectContaining({ status: 'delivered', attempts: 2, last_response_status: 200, last_error: null, next_attempt_at: null }));
    });

    it('fails a delivery once the schedule is used up, keeps the excerpt of the answer, and redelivers it on request', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      receiver.secrets = [endpoint.secret];
      receiver.answer = (_webhook, _request, response) => {
        response.statusCode = 503;
        response.end('x'.repeat(10_000));
      };
      await insertAuditEvent(tenant.organizationId);
      await until(async () => (await deliveriesOf(tenant, endpoint.id))[0]?.status === 'failed');
      const [failed] = await deliveriesOf(tenant, endpoint.id);
      expect(failed).toEqual(expect.objectContaining({ status: 'failed', attempts: 3, last_response_status: 503, next_attempt_at: null, delivered_at: null }));
      expect(failed.last_error).toBe('x'.repeat(512));
      expect(receiver.received).toHaveLength(3);

      receiver.answer = (_webhook, _request, response) => {
        response.statusCode = 200;
        response.end();
      };
      const requeued = await clientFor(tenant).POST('/api/openapi/v1/webhook-endpoints/deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: failed.delivery_id } } });
      expect(requeued.response.status).toBe(202);
      expect(requeued.data).toEqual(expect.objectContaining({ delivery_id: failed.delivery_id, status: 'pending', attempts: 0 }));
      const audited = await app.http().get('/api/openapi/v1/audit-events').query({ action: 'webhook_delivery.redelivered' }).set('Authorization', tenant.bearer);
      expect(audited.body.items).toEqual([
        expect.objectContaining({
          resource_type: 'webhook_delivery',
          resource_id: failed.delivery_id,
          changes: { status: { old: 'failed', new: 'pending' }, attempts: { old: 3, new: 0 } },
        }),
      ]);
      await until(async () => (await deliveriesOf(tenant, endpoint.id))[0]?.status === 'delivered');
      expect(receiver.received).toHaveLength(4);
      expect(receiver.received[3].id).toBe(failed.delivery_id);
    });

    it('signs with the old and the new secret for a day after rotate-secret', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      const rotated = await clientFor(tenant).POST('/api/openapi/v1/webhook-endpoints/{endpoint_id}/rotate-secret', { params: { path: { endpoint_id: endpoint.id } } });
      expect(rotated.response.status).toBe(200);
      expect(rotated.data).toEqual({ id: endpoint.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.stringMatching(/Z$/) });
      expect(rotated.data!.secret).not.toBe(endpoint.secret);
      const overlapHours = (Date.parse(rotated.data!.previous_secret_expires_at) - Date.now()) / 3_600_000;
      expect(overlapHours).toBeGreaterThan(23.9);
      expect(overlapHours).toBeLessThanOrEqual(24);
      receiver.secrets = [endpoint.secret, rotated.data!.secret, 'whsec_' + Buffer.alloc(32, 1).toString('base64')];
      await insertAuditEvent(tenant.organizationId);
      await until(() => receiver.received.length >= 1);
      expect(receiver.received[0].verifiedBy).toEqual([0, 1]);
      expect(receiver.received[0].signature.split(' ')).toHaveLength(2);
    });

    it('audits a secret rotation, with both secrets redacted, and delivers the event to subscribers, signed by the new secret too', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant, ['webhook_endpoint.secret_rotated']);
      const rotated = await app.http().post(`${PATH}/${endpoint.id}/rotate-secret`).set('Authorization', tenant.bearer).set('X-Request-Id', 'rotate-1');
      expect(rotated.status).toBe(200);
      const events = await app.http().get('/api/openapi/v1/audit-events').query({ action: 'webhook_endpoint.secret_rotated' }).set('Authorization', tenant.bearer);
      expect(events.status).toBe(200);
      expect(events.body.items).toEqual([
        expect.objectContaining({
          action: 'webhook_endpoint.secret_rotated',
          resource_type: 'webhook_endpoint',
          resource_id: endpoint.id,
          actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
          request_id: 'rotate-1',
          changes: { secret: { old: 'redacted', new: 'redacted' } },
        }),
      ]);
      expect(JSON.stringify(events.body)).not.toContain('whsec_');
      await until(() => receiver.received.length >= 1);
      const [webhook] = receiver.received;
      expect(webhook.payload).toEqual(expect.objectContaining({ type: 'webhook_endpoint.secret_rotated' }));
      const headers = { 'webhook-id': webhook.id, 'webhook-timestamp': webhook.timestamp, 'webhook-signature': webhook.signature };
      expect(() => new Webhook(rotated.body.secret).verify(webhook.body, headers)).not.toThrow();
      // Another organization's endpoint cannot be rotated, and the refusal writes no event.
      const other = await createTenant(database);
      expect((await app.http().post(`${PATH}/${endpoint.id}/rotate-secret`).set('Authorization', other.bearer)).status).toBe(404);
      const [{ count }] = await database.prisma.$queryRaw<{ count: bigint }[]>`
        SELECT count(*) FROM audit_events WHERE action = 'webhook_endpoint.secret_rotated' AND resource_id = ${endpoint.id}`;
      expect(count).toBe(1n);
    });

    it('pages through the deliveries of an endpoint, newest first', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      const events = [await insertAuditEvent(tenant.organizationId), await insertAuditEvent(tenant.organizationId), await insertAuditEvent(tenant.organizationId)];
      await until(() => receiver.received.length >= 3);
      const client = clientFor(tenant);
      const first = await client.GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpoint.id }, query: { page_size: 2 } } });
      const second = await client.GET('/api/openapi/v1/webhook-endpoints/{endpoint_id}/deliveries', {
        params: { path: { endpoint_id: endpoint.id }, query: { page_size: 2, page_token: first.data!.next_page_token! } },
      });
      expect([...first.data!.items, ...second.data!.items].map((item) => item.event_id)).toEqual([...events].reverse());
      expect(second.data!.next_page_token).toBeNull();
    });

    it('two instances deliver each of many events exactly once', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      receiver.secrets = [endpoint.secret];
      const count = 250;
      for (let i = 0; i < count / 5; i++) {
        await Promise.all(Array.from({ length: 5 }, () => insertAuditEvent(tenant.organizationId)));
      }
      await until(() => receiver.received.length >= count);
      // Time for a duplicate to show up, were there one.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ids = receiver.received.map((webhook) => webhook.id);
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
      const foreign = receiver.received.filter((webhook) => webhook.payload.type !== 'department.created' || webhook.verifiedBy.length === 0).map((webhook) => webhook.payload);
      expect({ received: ids.length, repeated, foreign }).toEqual({ received: count, repeated: [], foreign: [] });
      expect(new Set(receiver.received.map((webhook) => webhook.payload.data.event_id)).size).toBe(count);
      expect(receiver.verified(0)).toHaveLength(count);
      // And each delivery is recorded as delivered (the test times out otherwise).
      const undelivered = async () =>
        (await database.prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) FROM webhook_deliveries WHERE organization_id = ${tenant.organizationId}::uuid AND status <> 'delivered'`)[0].count;
      await until(async () => (await undelivered()) === 0n);
    });

    it("a delivery held by an instance that stops is delivered by the other instance", async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      receiver.secrets = [endpoint.secret];
      // A third instance takes the delivery and is closed while the receiver holds its request.
      const doomed = await startTestApp(database, FAST);
      let releaseHeld!: () => void;
      const held = new Promise<void>((resolve) => (releaseHeld = resolve));
      receiver.answer = async (_webhook, request, response) => {
        if (receiver.received.length === 1) {
          await Promise.race([held, new Promise((resolve) => request.socket.once('close', resolve))]);
          if (!response.destroyed) response.destroy();
          return;
        }
        response.statusCode = 204;
        response.end();
      };
      // Only the doomed instance delivers for now: the others are closed and restarted after.
      await Promise.all([app.close(), otherApp.close()]);
      await insertAuditEvent(tenant.organizationId);
      await until(() => receiver.received.length >= 1);
      await doomed.close();
      [app, otherApp] = await Promise.all([startTestApp(database, FAST), startTestApp(database, FAST)]);
      baseUrl = await listenOnLoopback(app);
      await until(() => receiver.received.length >= 2);
      releaseHeld();
      expect(receiver.received[1].id).toBe(receiver.received[0].id);
      await until(async () => (await deliveriesOf(tenant, endpoint.id))[0]?.status === 'delivered');
    });

    it('delivers, once its lease expires, a delivery claimed by an instance that died mid-attempt', async () => {
      const tenant = await createTenant(database);
      const endpoint = await newEndpoint(tenant);
      receiver.secrets = [endpoint.secret];
      // The claim of a worker that never comes back: the event and its lease in one transaction.
      const { eventId, leases } = await database.prisma.$transaction(async (tx) => {
        const [{ id }] = await tx.$queryRaw<{ id: string }[]>(auditEvent(tenant.organizationId));
        const claimed = await tx.$queryRaw<{ leaseUntil: Date }[]>`UPDATE webhook_deliveries SET lease_id = gen_random_uuid(), attempts = 1,
          next_attempt_at = now() + interval '1 second' WHERE event_id = ${id}::uuid RETURNING next_attempt_at AS "leaseUntil"`;
        return { eventId: id, leases: claimed };
      });
      await until(() => receiver.received.length >= 1);
      expect(receiver.received[0].receivedAt).toBeGreaterThanOrEqual(leases[0].leaseUntil.getTime());
      expect(receiver.received[0].payload.data.event_id).toBe(eventId);
      await until(async () => (await deliveriesOf(tenant, endpoint.id))[0]?.status === 'delivered');
      expect((await deliveriesOf(tenant, endpoint.id))[0].attempts).toBe(2);
    });

    it('drops the pending deliveries of a deleted endpoint and tells the other endpoints', async () => {
      const tenant = await createTenant(database);
      const watcher = await newEndpoint(tenant, ['webhook_endpoint.deleted'], `${receiverUrl}?watcher`);
      const doomed = await newEndpoint(tenant, ['department.created'], `${receiverUrl}?doomed`);
      receiver.answer = (_webhook, _request, response) => {
        response.statusCode = 500;
        response.end();
      };
      await insertAuditEvent(tenant.organizationId);
      await until(() => receiver.received.length >= 1);
      receiver.answer = (_webhook, _request, response) => {
        response.statusCode = 204;
        response.end();
      };
      expect((await app.http().delete(`${PATH}/${doomed.id}`).set('Authorization', tenant.bearer)).status).toBe(204);
      receiver.secrets = [watcher.secret];
      await until(() => receiver.received.some((webhook) => webhook.payload.type === 'webhook_endpoint.deleted'));
      await new Promise((resolve) => setTimeout(resolve, 800));
      const deleted = receiver.received.find((webhook) => webhook.payload.type === 'webhook_endpoint.deleted')!;
      expect(deleted.payload.data).toEqual(expect.objectContaining({ resource_id: doomed.id, changes: expect.objectContaining({ secret: { old: 'redacted', new: null }, url: { old: `${receiverUrl}?doomed`, new: null } }) }));
      expect(deleted.verifiedBy).toEqual([0]);
      // The failed department.created was not retried after the delete.
      expect(receiver.received.filter((webhook) => webhook.payload.type === 'department.created')).toHaveLength(1);
      const [{ count }] = await database.prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ${doomed.id}::uuid`;
      expect(count).toBe(0n);
    });

    it('shows the outbox and the attempts on the metrics', async () => {
      const texts = await Promise.all([app, otherApp].map((instance) => instance.app.get(Metrics).registry.metrics()));
      expect(texts[0]).toMatch(/^webhook_outbox_due_deliveries \d+$/m);
      expect(texts[0]).toMatch(/^webhook_outbox_oldest_due_age_seconds [\d.]+$/m);
      expect(texts.some((text) => /^webhook_delivery_attempts_total\{outcome="delivered"\} [1-9]\d*$/m.test(text))).toBe(true);
    });
  });
});
