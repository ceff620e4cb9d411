import { ProbeModule } from './support/probe.module';
import { openTestDatabase, startTestApp, type TestApp } from './support/test-app';
import type { Database } from '../src/database/database';

describe('client address behind proxies (TRUST_PROXY)', () => {
  let database: Database;
  let direct: TestApp;
  let behindLoopbackProxy: TestApp;

  beforeAll(async () => {
    database = await openTestDatabase();
    [direct, behindLoopbackProxy] = await Promise.all([
      startTestApp(database, {}, [ProbeModule]),
      // The tests connect from 127.0.0.1, so they stand in for the proxy here.
      startTestApp(database, { TRUST_PROXY: 'loopback' }, [ProbeModule]),
    ]);
  });

  afterAll(async () => {
    await Promise.all([direct.close(), behindLoopbackProxy.close()]);
    await database.close();
  });

  it('ignores X-Forwarded-For when no proxy is trusted: the client is whoever connects', async () => {
    const answer = await direct.http().get('/probe/client-address').set('X-Forwarded-For', '203.0.113.7').expect(200);
    expect(answer.body.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('takes the client from X-Forwarded-For when the connection comes from a trusted proxy', async () => {
    const answer = await behindLoopbackProxy.http().get('/probe/client-address').set('X-Forwarded-For', '203.0.113.7').expect(200);
    expect(answer.body.ip).toBe('203.0.113.7');
  });

  it('stops at the first address that is not a trusted proxy, so a client cannot forge its address', async () => {
    // The client put 198.51.100.1 in the header itself; the (trusted) proxy appended the address it saw.
    const answer = await behindLoopbackProxy.http().get('/probe/client-address').set('X-Forwarded-For', '198.51.100.1, 203.0.113.7').expect(200);
    expect(answer.body.ip).toBe('203.0.113.7');
  });
});
