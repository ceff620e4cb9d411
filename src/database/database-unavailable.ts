import { Prisma } from '../generated/prisma/client';
import { DatabaseBusyError } from './postgres-pool';
import { SqlTransactionTimeoutError } from './sql-driver';

/**
 * Prisma codes that mean the database could not be reached or the connection broke, as opposed
 * to a query the database rejected: P1001 not reachable, P1002 timed out reaching it, P1008
 * operation timed out, P1017 server closed the connection, P2024 no pooled connection in time,
 * P2037 too many connections.
 */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);

/**
 * SQLSTATEs a driver adapter passes through unmapped: class 08 (connection exception) and the
 * server shutting down or starting up (57P01-57P03).
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[123])/;

/** Kinds a driver adapter gives connection failures it maps itself. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** Socket errors that reach us unwrapped (the pg driver wraps most of them). */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Plain Errors the drivers throw without a code: a closed PGlite instance, an ended pg pool, a
 * dropped connection, a pool that could not connect in time.
 */
const UNAVAILABLE_MESSAGES = [
  'PGlite is closed',
  'Cannot use a pool after calling end on the pool',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  // A pooled client whose connection broke inside a transaction, used again before it is discarded.
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * True when `error` says the database cannot be used right now (reachability, connection loss,
 * closed client), so a caller may answer 503 or serve stale data. Everything else (constraint
 * violations, missing tables, bugs) is false and must surface as the error it is.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    return UNAVAILABLE_PRISMA_CODES.has(error.code) || isUnavailableAdapterCause(adapterCause(error.meta?.driverAdapterError));
  }
  if (!isErrorLike(error)) return false;
  // The client passes a driver adapter's error on unwrapped where it fails outside a query (COMMIT).
  if (error.name === 'DriverAdapterError' && isUnavailableAdapterCause(adapterCause(error))) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  return UNAVAILABLE_MESSAGES.includes(error.message);
}

function adapterCause(adapterError: unknown): { kind?: unknown; code?: unknown } | undefined {
  return (adapterError as { cause?: { kind?: unknown; code?: unknown } } | undefined)?.cause;
}

/** A driver adapter error's cause (`{ kind, code? }`) that says the connection was lost or refused. */
function isUnavailableAdapterCause(cause: { kind?: unknown; code?: unknown } | undefined): boolean {
  if (typeof cause?.kind !== 'string') return false;
  if (UNAVAILABLE_ADAPTER_KINDS.has(cause.kind)) return true;
  return cause.kind === 'postgres' && typeof cause.code === 'string' && UNAVAILABLE_SQLSTATE.test(cause.code);
}

/** Why a request's wait for the database ran out: the pool, one statement, or the whole transaction. */
export type DatabaseWait = 'pool' | 'statement' | 'transaction' | 'contention';

/**
 * SQLSTATEs of a statement that waited too long: 57014 cancelled (DeadlineClient's cancel, the
 * server's statement_timeout or an administrator), 55P03 a lock not granted in time (the server's
 * lock_timeout), 25P04 the transaction's deadline; and of one that lost its turn to contention and
 * succeeds when tried again: 40P01 chosen as a deadlock's victim, 40001 a serialization failure.
 */
const WAIT_BY_SQLSTATE: Partial<Record<string, DatabaseWait>> = {
  '57014': 'statement',
  '55P03': 'statement',
  '25P04': 'transaction',
  '40P01': 'contention',
  '40001': 'contention',
};

/**
 * Which wait ran out when the database is reachable but the request could not get its turn in
 * time: every pooled connection stayed busy (DatabaseBusyError), a statement waited past its
 * deadline (on a lock, or an overloaded server), or a transaction could not start or finish
 * within its limit (P2028 from the Prisma client, SqlTransactionTimeoutError from a SQL
 * transaction, 25P04 from a statement cancelled at the transaction's deadline). Overload or
 * contention, not an outage; undefined for anything else.
 */
export function databaseWait(error: unknown): DatabaseWait | undefined {
  if (error instanceof DatabaseBusyError) return 'pool';
  if (error instanceof SqlTransactionTimeoutError) return 'transaction';
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2028') return 'transaction';
    return waitOfCause(adapterCause(error.meta?.driverAdapterError));
  }
  if (!isErrorLike(error)) return undefined;
  if (error.name === 'DriverAdapterError') return waitOfCause(adapterCause(error));
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? WAIT_BY_SQLSTATE[code] : undefined;
}

function waitOfCause(cause: { kind?: unknown; code?: unknown } | undefined): DatabaseWait | undefined {
  // Prisma's PostgreSQL adapter names 40001 by a kind of its own.
  if (cause?.kind === 'TransactionWriteConflict') return 'contention';
  return cause?.kind === 'postgres' && typeof cause.code === 'string' ? WAIT_BY_SQLSTATE[cause.code] : undefined;
}

/**
 * An Error by its shape, not by `instanceof`: a socket's error (EPIPE, which the driver adapter
 * passes on unwrapped) is made by Node's own Error, which is another realm's under a test runner.
 */
function isErrorLike(error: unknown): error is Error {
  return typeof error === 'object' && error !== null && typeof (error as Error).message === 'string' && typeof (error as Error).name === 'string';
}
