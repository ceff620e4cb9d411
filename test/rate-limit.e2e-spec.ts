import type { Database } from '../src/database/database';
import { expectErrorBody } from './support/error-body';
import { ProbeModule } from './support/probe.module';
import { createTenant, openTestDatabase, startTestApp, type TestApp } from './support/test-app';

describe('rate limit per API key', () => {
  let database: Database;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database, { RATE_LIMIT_PER_MINUTE: 3 }, [ProbeModule]);
  });

  afterAll(async () => {
    await testApp.close();
    await database.close();
  });

  it('answers 429 RATE_LIMITED with Retry-After once a key spends its budget, without touching other keys', async () => {
    const spender = await createTenant(database);
    const bystander = await createTenant(database);
    for (let i = 0; i < 3; i++) {
      await testApp.http().get('/probe/quota-read').set('Authorization', spender.bearer).expect(200);
    }
    const limited = await testApp.http().get('/probe/quota-read').set('Authorization', spender.bearer);
    expectErrorBody(limited, 429, 'RATE_LIMITED', 'too_many_requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The budget is per key, shared by every operation.
    await testApp.http().post('/probe/directory-manage').set('Authorization', spender.bearer).send({ text: 'x' }).expect(429);
    await testApp.http().get('/probe/quota-read').set('Authorization', bystander.bearer).expect(200);
  });

  it('never limits liveness and readiness probes', async () => {
    for (let i = 0; i < 10; i++) {
      await testApp.http().get('/healthz').expect(200);
      await testApp.http().get('/readyz').expect(200);
    }
  });
});
