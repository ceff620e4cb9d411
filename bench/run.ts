import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdminService } from '../src/admin/admin.service';
import { createApp } from '../src/app.factory';
import { ALL_SCOPES } from '../src/common/auth/scopes';
import { loadConfig } from '../src/config/app-config';
import { openDatabase, type DatabaseKind } from '../src/database/database';
import { runScenario, type Scenario, type ScenarioResult } from './load';

interface Targets {
  scenarios: Record<string, { maxP95Ms: number; minRequestsPerSecond: number }>;
  maxRssMiB: number;
}

type TargetsByDatabase = Record<DatabaseKind, Targets>;

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

/** `npm run bench`: the service in this process on a real database, loaded over loopback HTTP. */
async function main(): Promise<number> {
  const config = loadConfig({}, {
    DATABASE_URL: process.env.BENCH_DATABASE_URL || undefined,
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: 0,
  });
  const database = await openDatabase(config);
  await database.migrate();
  const app = await createApp({ config, database });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/openapi/v1`;
  try {
    const admin = new AdminService(database.prisma);
    const org = await admin.createOrganization(`bench ${randomUUID()}`);
    const key = (await admin.createApiKey(org.id, [...ALL_SCOPES])).key;
    const suite = await admin.createExpertSuite(org.id, 'bench-suite');
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const run = randomUUID().slice(0, 8);
    const replayKey = `bench-replay-${run}`;
    const createBody = (i: number) => JSON.stringify({ name: `Department ${run}-${i}`, external_id: `ext-${run}-${i}` });

    const scenarios: Scenario[] = [
      {
        name: 'read metering policy',
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        expectedStatus: 200,
        send: async () => (await fetch(`${base}/metering-policy`, { headers })).status,
      },
      {
        name: 'create department',
        requests: Math.ceil(REQUESTS / 2),
        concurrency: CONCURRENCY,
        expectedStatus: 201,
        send: async (i) =>
          (await fetch(`${base}/departments`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': `bench-${run}-${i}` }, body: createBody(i) })).status,
      },
      {
        name: 'replay create department',
        requests: REQUESTS,
        concurrency: 1,
        expectedStatus: 201,
        send: async () =>
          (await fetch(`${base}/departments`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': replayKey }, body: createBody(-1) })).status,
      },
      {
        name: 'update expert suite',
        requests: Math.ceil(REQUESTS / 2),
        concurrency: CONCURRENCY,
        expectedStatus: 200,
        send: async (i) =>
          (await fetch(`${base}/expert-suites/${suite.id}`, { method: 'PATCH', headers, body: JSON.stringify({ display_name: `Suite ${i}` }) })).status,
      },
    ];

    const targets = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'targets.json'), 'utf8')) as TargetsByDatabase)[database.kind];
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) results.push(await runScenario(scenario));
    const rssMiB = Math.round(process.memoryUsage().rss / (1024 * 1024));
    return report(results, rssMiB, targets, database.kind);
  } finally {
    await app.close();
    await database.close();
  }
}

function report(results: ScenarioResult[], rssMiB: number, targets: Targets, databaseKind: string): number {
  let missed = 0;
  console.log(`database: ${databaseKind}, concurrency ${CONCURRENCY}`);
  console.table(results);
  for (const result of results) {
    const target = targets.scenarios[result.name];
    const problems: string[] = [];
    if (result.unexpected > 0) problems.push(`${result.unexpected} unexpected statuses`);
    if (target && result.p95Ms > target.maxP95Ms) problems.push(`p95 ${result.p95Ms} ms > ${target.maxP95Ms} ms`);
    if (target && result.requestsPerSecond < target.minRequestsPerSecond) problems.push(`${result.requestsPerSecond} req/s < ${target.minRequestsPerSecond}`);
    missed += problems.length;
    console.log(`${problems.length === 0 ? 'ok    ' : 'MISSED'} ${result.name}${problems.length ? `: ${problems.join('; ')}` : ''}`);
  }
  const memoryOk = rssMiB <= targets.maxRssMiB;
  if (!memoryOk) missed++;
  console.log(`${memoryOk ? 'ok    ' : 'MISSED'} resident memory ${rssMiB} MiB (target ≤ ${targets.maxRssMiB} MiB)`);
  return missed === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
