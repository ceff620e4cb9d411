import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { databaseUrl, dropDatabase, makeFixture } from './databases';
import { measure } from './measure';
import type { ServerProcess } from './processes';
import { prepareDatabase, startService } from './service';
import { readSettings } from './settings';
import { DirectoryAudit } from '../src/modules/directory/directory.audit';

const ROOT = join(__dirname, '..', '..');
const SCRIPTS = {
  migrate: join(ROOT, 'dist/src/database/migrate.main.js'),
  load: join(ROOT, 'dist/bench/load.js'),
};
const READY_TIMEOUT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 30_000;
// From COMMIT to the receiver's 2xx while the outbox is not backlogged, with another organization's receiver hanging.
const TARGET_P99_MS = 1000;

/**
 * `npm run bench:delivery` (docs/benchmarks.md, *Webhook delivery*): two service instances on one
 * PostgreSQL deliver the audit events of a quiet organization to a receiver in this process, while
 * the create load runs against the first and a failing organization's events go to a receiver that
 * never answers (each of its attempts holds a slot until WEBHOOK_RESPONSE_TIMEOUT_MS). Each
 * organization's events are written at BENCH_DELIVERY_EVENTS_PER_SECOND, one committed statement
 * each, built by the audit kit as the service builds it (the event and its deliveries, with
 * NOTIFY); the delay is from the COMMIT's return to the quiet receiver's answer. Prints the events
 * written and delivered per second and the quiet organization's delay p50 / p99; exits 1 when p99
 * misses the target or an event is lost or duplicated.
 */
async function main(): Promise<number> {
  const settings = readSettings(process.env);
  const eventsPerSecond = Number(process.env.BENCH_DELIVERY_EVENTS_PER_SECOND || 100);
  const fixture = makeFixture(1, 1, 2);
  const [tenant, failingTenant] = fixture.createTenants;
  const name = `${settings.databasePrefix}delivery_${process.pid}`;
  const url = databaseUrl(settings.postgresUrl, name);
  const workDirectory = mkdtempSync(join(tmpdir(), 'wsa-bench-delivery-'));
  const servers: ServerProcess[] = [];
  const receivedAt = new Map<string, number[]>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const eventId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { event_id: string } }).data.event_id;
      receivedAt.set(eventId, [...(receivedAt.get(eventId) ?? []), at]);
      response.writeHead(204).end();
    });
  });
  const hanging: ServerResponse[] = [];
  const hangingReceiver = createServer((_request, response) => void hanging.push(response));
  const writer = new Client({ connectionString: url });
  try {
    await prepareDatabase(SCRIPTS.migrate, settings.postgresUrl, name, fixture, workDirectory);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => hangingReceiver.listen(0, '127.0.0.1', resolve));
    const urlOf = (server: typeof receiver) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await writer.connect();
    for (const [organizationId, receiverUrl] of [
      [tenant.organizationId, urlOf(receiver)],
      [failingTenant.organizationId, urlOf(hangingReceiver)],
    ]) {
      await writer.query(
        `INSERT INTO webhook_endpoints (id, organization_id, url, event_types, secret) VALUES ($1, $2, $3, ARRAY['*'], $4)`,
        [randomUUID(), organizationId, receiverUrl, `whsec_${Buffer.alloc(32, 7).toString('base64')}`],
      );
    }
    for (const label of ['instance 1', 'instance 2']) {
      servers.push(await startService(label, ROOT, { DATABASE_URL: url, WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' }, workDirectory, settings.serviceNodeArgs));
    }
    for (const server of servers) await server.waitUntilReady(READY_TIMEOUT_MS);

    const committedAt = new Map<string, number>();
    const audit = new AuditStatements('on');
    let writing = true;
    const writeEvents = (async () => {
      const started = performance.now();
      let written = 0;
      while (writing) {
        const due = Math.floor(((performance.now() - started) / 1000) * eventsPerSecond);
        for (; written < due && writing; written++) {
          const failing = audit.insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId: failingTenant.organizationId, action: DirectoryAudit.DepartmentCreated, resourceId: String(written), changes: {} });
          await writer.query(failing.text, failing.values);
          const statement = audit.insert({ actor: CLI_ACTOR, at: new Date() }, { organizationId: tenant.organizationId, action: DirectoryAudit.DepartmentCreated, resourceId: String(written), changes: {} });
          const [{ id }] = (await writer.query<{ id: string }>(statement.text, statement.values)).rows;
          committedAt.set(id, performance.now());
        }
        await sleep(2);
      }
    })();
    const job = { scenario: 'create' as const, token: tenant.token, suiteIds: [], departmentIds: [], userIds: [], runTag: `delivery-${process.pid}`, durationSeconds: settings.durationSeconds, connections: settings.connections };
    const loadStarted = performance.now();
    const load = await measure(servers[0], job, SCRIPTS.load);
    writing = false;
    await writeEvents;
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const drainStarted = performance.now();
    while ([...committedAt.keys()].some((id) => !receivedAt.has(id)) && performance.now() - drainStarted < DRAIN_TIMEOUT_MS) await sleep(20);

    const delays = [...committedAt].flatMap(([id, at]) => (receivedAt.has(id) ? [receivedAt.get(id)![0] - at] : [])).sort((a, b) => a - b);
    const lost = committedAt.size - delays.length;
    const duplicates = [...receivedAt.values()].filter((times) => times.length > 1).length;
    const percentile = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))] ?? NaN;
    const [{ count: auditEvents }] = (await writer.query<{ count: string }>('SELECT count(*) FROM audit_events WHERE organization_id = $1', [tenant.organizationId])).rows;
    console.log(`create load: ${load.load.requestsPerSecond.toFixed(0)} req/s (p99 ${load.load.p99Ms} ms, non-2xx ${load.load.non2xx}) on instance 1, ${settings.connections} connections, ${settings.durationSeconds} s`);
    console.log(`audit events written: ${(Number(auditEvents) / loadSeconds).toFixed(0)}/s (${auditEvents} in ${loadSeconds.toFixed(1)} s; ${committedAt.size} by the bench's writer)`);
    console.log(`failing organization: ${committedAt.size} events written, ${hanging.length} attempts held by its receiver that never answers`);
    console.log(`quiet organization, COMMIT → receiver 2xx over two instances: p50 ${percentile(50).toFixed(1)} ms, p99 ${percentile(99).toFixed(1)} ms, max ${percentile(100).toFixed(1)} ms; lost ${lost}, duplicated ${duplicates}`);
    const ok = percentile(99) < TARGET_P99_MS && lost === 0 && duplicates === 0;
    console.log(`${ok ? 'ok    ' : 'MISSED'} delivery p99 < ${TARGET_P99_MS} ms, none lost or duplicated`);
    return ok ? 0 : 1;
  } finally {
    await writer.end().catch(() => undefined);
    for (const server of servers) await server.stop();
    receiver.close();
    for (const response of hanging) response.destroy();
    hangingReceiver.close();
    await dropDatabase(settings.postgresUrl, name).catch(() => undefined);
    rmSync(workDirectory, { recursive: true, force: true });
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
