import { Prisma } from '../generated/prisma/client';
import { LOCK_NOT_AVAILABLE } from './lock-wait';

interface DriverAdapterCause {
  kind?: string;
  /** The SQLSTATE, for errors the adapter passes on as kind `postgres`. */
  code?: string;
  originalMessage?: string;
  constraint?: { index?: string };
}

/**
 * What the driver adapter said about a failed statement: the client wraps it in P2010 (raw query
 * failed) as `meta.driverAdapterError`; a statement sent to the adapter itself (txHost.sql) throws
 * the DriverAdapterError as it is.
 */
function driverAdapterCause(error: unknown): DriverAdapterCause | undefined {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return (error.meta?.driverAdapterError as { cause?: DriverAdapterCause } | undefined)?.cause;
  if (error instanceof Error && error.name === 'DriverAdapterError') return (error as { cause?: DriverAdapterCause }).cause;
  return undefined;
}

/** A unique constraint refused the write: P2002 from a model query, or the driver adapter's error from a raw statement. */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return true;
  return driverAdapterCause(error)?.kind === 'UniqueConstraintViolation';
}

/** A foreign key refused the write: P2003 from a model query, or the driver adapter's error from a raw statement. */
export function isForeignKeyViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') return true;
  return driverAdapterCause(error)?.kind === 'ForeignKeyConstraintViolation';
}

/**
 * The name of the constraint or index a unique or foreign-key violation hit. The PostgreSQL adapter reports it
 * as `constraint.index`; the PGlite adapter only lists column expressions, so the name is read
 * from the database's own message there.
 */
export function violatedConstraint(error: unknown): string | undefined {
  const cause = driverAdapterCause(error);
  return cause?.constraint?.index ?? /constraint "([^"]+)"/.exec(cause?.originalMessage ?? '')?.[1];
}

/** SQLSTATEs of text PostgreSQL cannot store: 22021 (a NUL byte in text), 22P05 (\u0000 in jsonb). */
const UNSTORABLE_TEXT_SQLSTATES = new Set(['22021', '22P05']);

/** The database refused a value as text it cannot store (raw and model queries alike). */
export function isUnstorableText(error: unknown): boolean {
  const cause = driverAdapterCause(error);
  return cause?.kind === 'postgres' && UNSTORABLE_TEXT_SQLSTATES.has(cause.code ?? '');
}

/** A statement gave up waiting for a lock (SQLSTATE 55P03: `withLockWaitLimit`, or the server's lock_timeout). */
export function isLockNotAvailable(error: unknown): boolean {
  const cause = driverAdapterCause(error);
  return cause?.kind === 'postgres' && cause.code === LOCK_NOT_AVAILABLE;
}
