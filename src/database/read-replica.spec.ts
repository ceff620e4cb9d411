import { Logger } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { DatabaseBusyError } from './postgres-pool';
import { ReadReplica, type SqlReads } from './read-replica';

const STATEMENT = Prisma.sql`SELECT 1`;
const RETRY_AFTER_MS = 50;

/** Statements answered by `answer` in turn, counted: the routing under test, not SQL. */
function server(answer: () => Promise<unknown[]>): SqlReads & { calls: number } {
  const queries = {
    calls: 0,
    query: <T>() => {
      queries.calls++;
      return answer() as Promise<T[]>;
    },
  };
  return queries;
}

const connections = (ping: () => Promise<void>) => ({ ping, poolUsage: () => ({ inUse: 0, idle: 0, waiting: 0 }) });

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
const recoveryConflict = () => Object.assign(new Error('canceling statement due to conflict with recovery'), { name: 'DriverAdapterError', cause: { kind: 'TransactionWriteConflict' } });
const syntaxError = () => Object.assign(new Error('syntax error'), { name: 'DriverAdapterError', cause: { kind: 'postgres', code: '42601' } });

describe('ReadReplica', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['error', 'warn', 'log']));
  // The retry time is read from performance.now(): a faked clock moves only when a test moves it,
  // so a slow machine cannot pass the retry time between two statements.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('reads on the replica while it answers', async () => {
    const replica = server(async () => ['replica']);
    const primary = server(async () => ['primary']);
    const reads = new ReadReplica(replica, primary, connections(async () => undefined), RETRY_AFTER_MS);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
    expect([replica.calls, primary.calls]).toEqual([2, 0]);
    expect(reads.isOut).toBe(false);
  });

  it('sends a read the unreachable replica failed to the primary, then reads there until the retry time, then tries the replica again', async () => {
    let replicaUp = false;
    const replica = server(async () => {
      if (!replicaUp) throw refused();
      return ['replica'];
    });
    const primary = server(async () => ['primary']);
    const reads = new ReadReplica(replica, primary, connections(async () => undefined), RETRY_AFTER_MS);

    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    expect(reads.isOut).toBe(true);
    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    expect([replica.calls, primary.calls]).toEqual([1, 2]);

    jest.advanceTimersByTime(RETRY_AFTER_MS + 10);
    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    expect([replica.calls, primary.calls]).toEqual([2, 3]);

    replicaUp = true;
    jest.advanceTimersByTime(RETRY_AFTER_MS + 10);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
    expect(reads.isOut).toBe(false);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
    expect([replica.calls, primary.calls]).toEqual([4, 3]);
  });

  it('sends one read to the primary after a conflict with recovery or a busy replica pool, without taking the replica out', async () => {
    const failures = [recoveryConflict(), new DatabaseBusyError(5000)];
    const replica = server(async () => {
      const failure = failures.shift();
      if (failure) throw failure;
      return ['replica'];
    });
    const primary = server(async () => ['primary']);
    const reads = new ReadReplica(replica, primary, connections(async () => undefined), RETRY_AFTER_MS);
    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    expect(reads.isOut).toBe(false);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
  });

  it('answers a fault of the read itself as it is, without asking the primary', async () => {
    const replica = server(async () => {
      throw syntaxError();
    });
    const primary = server(async () => ['primary']);
    const reads = new ReadReplica(replica, primary, connections(async () => undefined), RETRY_AFTER_MS);
    await expect(reads.query(STATEMENT)).rejects.toThrow('syntax error');
    expect(primary.calls).toBe(0);
    expect(reads.isOut).toBe(false);
  });

  it('takes the replica out when readiness cannot reach it, and back in when it can', async () => {
    let pingFails = true;
    const replica = server(async () => ['replica']);
    const primary = server(async () => ['primary']);
    const reads = new ReadReplica(
      replica,
      primary,
      connections(async () => {
        if (pingFails) throw refused();
      }),
      RETRY_AFTER_MS,
    );
    expect(await reads.check()).toBe(false);
    expect(await reads.query(STATEMENT)).toEqual(['primary']);
    pingFails = false;
    expect(await reads.check()).toBe(true);
    expect(await reads.query(STATEMENT)).toEqual(['replica']);
  });
});
