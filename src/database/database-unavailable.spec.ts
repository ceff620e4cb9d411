import vm from 'node:vm';
import { Prisma } from '../generated/prisma/client';
import { databaseWait, isDatabaseUnavailable } from './database-unavailable';
import { DatabaseBusyError } from './postgres-pool';
import { SqlTransactionTimeoutError } from './sql-driver';

const known = (code: string, meta?: Record<string, unknown>) =>
  new Prisma.PrismaClientKnownRequestError('failed', { code, clientVersion: 'test', meta });
const postgresCause = (sqlState: string) => ({ driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'postgres', code: sqlState } } });
const adapterError = (cause: Record<string, unknown>) => Object.assign(new Error('driver adapter failed'), { name: 'DriverAdapterError', cause });
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['P1001 database not reachable', known('P1001')],
    ['P1002 timed out reaching the database', known('P1002')],
    ['P1008 operation timed out', known('P1008')],
    ['P1017 server closed the connection', known('P1017')],
    ['P2024 no pooled connection in time', known('P2024')],
    ['P2037 too many connections', known('P2037')],
    ['unmapped SQLSTATE 08006 connection failure', known('P2039', postgresCause('08006'))],
    ['unmapped SQLSTATE 57P01 admin shutdown', known('P2039', postgresCause('57P01'))],
    ['P2010 whose adapter saw the connection close', known('P2010', { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } } })],
    ['a bare adapter error at COMMIT: backend terminated (57P01)', adapterError({ kind: 'postgres', code: '57P01' })],
    ['a bare adapter error: database not reachable', adapterError({ kind: 'DatabaseNotReachable' })],
    ['a bare adapter error: socket timeout', adapterError({ kind: 'SocketTimeout' })],
    ['client initialization failed', new Prisma.PrismaClientInitializationError('cannot connect', 'test')],
    ['closed PGlite', new Error('PGlite is closed')],
    ['ended pg pool', new Error('Cannot use a pool after calling end on the pool')],
    ['connection dropped', new Error('Connection terminated unexpectedly')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['a transaction client whose connection broke', new Error('Client has encountered a connection error and is not queryable')],
    ['raw ECONNREFUSED', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    // What a pipelined statement written to a connection the server has closed gets: Node's own
    // Error, another realm's under a test runner, which the driver adapter passes on unwrapped.
    ['raw EPIPE made by another realm', vm.runInNewContext(`Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' })`)],
  ])('counts %s as unavailable', (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['P2002 unique violation', known('P2002')],
    ['P2021 table does not exist', known('P2021')],
    ['P2025 record not found', known('P2025')],
    ['P2010 raw query failed (syntax)', known('P2010', { driverAdapterError: { cause: { kind: 'postgres', code: '42601' } } })],
    ['unmapped SQLSTATE 23514 check violation', known('P2039', postgresCause('23514'))],
    ['a bare adapter error for a unique violation', adapterError({ kind: 'UniqueConstraintViolation' })],
    ['a bare adapter error for a syntax error', adapterError({ kind: 'postgres', code: '42601' })],
    ['an error named like an adapter error without a cause', Object.assign(new Error('x'), { name: 'DriverAdapterError' })],
    ['a TypeError from a bug', new TypeError("Cannot read properties of undefined (reading 'anchorAt')")],
    ['an error merely mentioning a closed database', new Error('oops: PGlite is closed, said the log')],
    ['a thrown string', 'PGlite is closed'],
    ['undefined', undefined],
  ])('does not count %s as unavailable', (_case, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('databaseWait', () => {
  it.each([
    ['a wait for a busy pool', new DatabaseBusyError(10_000), 'pool'],
    ['a Prisma transaction that could not start or finish in time (P2028)', known('P2028'), 'transaction'],
    ['a SQL transaction past its limit', new SqlTransactionTimeoutError(15_000), 'transaction'],
    ['a statement cancelled at its deadline (57014), through the client', known('P2010', postgresCause('57014')), 'statement'],
    ['a statement cancelled at its deadline (57014), from the adapter', adapterError({ kind: 'postgres', code: '57014' }), 'statement'],
    ['a lock not granted within lock_timeout (55P03)', adapterError({ kind: 'postgres', code: '55P03' }), 'statement'],
    ['a statement cancelled at the transaction deadline (25P04)', adapterError({ kind: 'postgres', code: '25P04' }), 'transaction'],
    ['a deadlock victim (40P01)', adapterError({ kind: 'postgres', code: '40P01' }), 'contention'],
    ['a serialization failure (40001), as the adapter names it', adapterError({ kind: 'TransactionWriteConflict' }), 'contention'],
    ['the deadline error from the pg client itself', Object.assign(new Error('canceling statement'), { code: '57014', severity: 'ERROR' }), 'statement'],
  ])('calls %s a wait for the %s, not unavailable', (_case, error, wait) => {
    expect(databaseWait(error)).toBe(wait);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('does not call an unreachable database or a constraint violation a wait', () => {
    for (const error of [new Error('timeout exceeded when trying to connect'), known('P1001'), known('P2002'), adapterError({ kind: 'postgres', code: '42601' }), 'boom']) {
      expect(databaseWait(error)).toBeUndefined();
    }
  });
});
