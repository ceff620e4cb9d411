import { Prisma } from '../generated/prisma/client';

interface DriverAdapterCause {
  kind?: string;
  /** The SQLSTATE, for errors the adapter passes on as kind `postgres`. */
  code?: string;
  originalMessage?: string;
  constraint?: { index?: string };
}

function driverAdapterCause(error: Prisma.PrismaClientKnownRequestError): DriverAdapterCause | undefined {
  return (error.meta?.driverAdapterError as { cause?: DriverAdapterCause } | undefined)?.cause;
}

/**
 * A unique constraint refused the write: P2002 from a model query, or P2010 (raw query failed)
 * whose driver adapter error says so, from `$queryRaw` / `$executeRaw`.
 */
export function isUniqueViolation(error: unknown): error is Prisma.PrismaClientKnownRequestError {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  return error.code === 'P2002' || (error.code === 'P2010' && driverAdapterCause(error)?.kind === 'UniqueConstraintViolation');
}

/**
 * The name of the constraint or index a unique violation hit. The PostgreSQL adapter reports it
 * as `constraint.index`; the PGlite adapter only lists column expressions, so the name is read
 * from the database's own message there.
 */
export function violatedConstraint(error: Prisma.PrismaClientKnownRequestError): string | undefined {
  const cause = driverAdapterCause(error);
  return cause?.constraint?.index ?? /constraint "([^"]+)"/.exec(cause?.originalMessage ?? '')?.[1];
}

/** SQLSTATEs of text PostgreSQL cannot store: 22021 (a NUL byte in text), 22P05 (\u0000 in jsonb). */
const UNSTORABLE_TEXT_SQLSTATES = new Set(['22021', '22P05']);

/** The database refused a value as text it cannot store (raw and model queries alike). */
export function isUnstorableText(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = driverAdapterCause(error);
  return cause?.kind === 'postgres' && UNSTORABLE_TEXT_SQLSTATES.has(cause.code ?? '');
}
