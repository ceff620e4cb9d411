import { IdempotencyPurger } from '../src/common/idempotency/idempotency-purger';
import { expectErrorBody } from './support/error-body';
import { IdempotentProbeController, IdempotentProbeModule } from './support/idempotent-probe.module';
import { useTestApp } from './support/test-app';

describe('@Idempotent() on a write of another module', () => {
  const fixture = useTestApp({ extraModules: [IdempotentProbeModule] });
  const newKey = fixture.newIdempotencyKey;
  let probe: IdempotentProbeController;

  beforeAll(() => {
    probe = fixture.app.app.get(IdempotentProbeController);
  });

  const write = (name: string, note: string, key: string) =>
    fixture.http().post(`/probe/idempotent/${name}`).set('Authorization', fixture.tenant.bearer).set('Idempotency-Key', key).send({ note });

  const categoriesNamed = (name: string) => fixture.database.prisma.category.count({ where: { organizationId: fixture.tenant.organizationId, name } });

  it('runs the handler once and replays its status and body without running it again', async () => {
    const key = newKey();
    const first = await write('alpha', 'hello', key).expect(200);
    const callsAfterFirst = probe.calls;
    const replay = await write('alpha', 'hello', key).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(probe.calls).toBe(callsAfterFirst);
    expect(await categoriesNamed('alpha')).toBe(1);
  });

  it('treats the same key sent to another path as a different request (422)', async () => {
    const key = newKey();
    await write('beta', 'same body', key).expect(200);
    expectErrorBody(await write('gamma', 'same body', key), 422, 'IDEMPOTENCY_KEY_REUSED', 'unprocessable_entity');
    expect(await categoriesNamed('gamma')).toBe(0);
  });

  it('rolls back the handler’s writes with a failure and stores nothing, so a retry runs again', async () => {
    const key = newKey();
    expectErrorBody(await write('delta', 'fail after writing', key), 409, 'INVALID_STATUS_TRANSITION', 'conflict');
    expect(await categoriesNamed('delta')).toBe(0);
    expect(await fixture.database.prisma.idempotencyRecord.count({ where: { apiKeyId: fixture.tenant.apiKeyId, key } })).toBe(0);
    const retry = await write('delta', 'fine now', key).expect(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await categoriesNamed('delta')).toBe(1);
  });

  it('purges expired records and keeps live ones', async () => {
    const liveKey = newKey();
    await write('epsilon', 'live', liveKey).expect(200);
    const past = new Date(Date.now() - 60_000);
    await fixture.database.prisma.idempotencyRecord.createMany({
      data: Array.from({ length: 3 }, (_, index) => ({
        apiKeyId: fixture.tenant.apiKeyId,
        key: `expired-${index}-${newKey()}`,
        fingerprint: '0'.repeat(64),
        statusCode: 200,
        responseBody: '{}',
        expiresAt: past,
      })),
    });
    const purged = await fixture.app.app.get(IdempotencyPurger).purge();
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(await fixture.database.prisma.idempotencyRecord.count({ where: { apiKeyId: fixture.tenant.apiKeyId, expiresAt: { lte: new Date() } } })).toBe(0);
    expect(await fixture.database.prisma.idempotencyRecord.count({ where: { apiKeyId: fixture.tenant.apiKeyId, key: liveKey } })).toBe(1);
  });
});
