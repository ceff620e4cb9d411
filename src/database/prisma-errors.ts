import { Prisma } from '../generated/prisma/client';

/** A unique constraint refused the write; `target` names the constraint or columns where known. */
export function isUniqueViolation(error: unknown): error is Prisma.PrismaClientKnownRequestError {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

interface DriverAdapterCause {
  originalMessage?: string;
  constraint?: { index?: string };
}

/**
 * The name of the constraint or index a unique violation hit. The PostgreSQL adapter reports it
 * as `constraint.index`; the PGlite adapter only lists column expressions, so the name is read
 * from the database's own message there.
 */
export function violatedConstraint(error: Prisma.PrismaClientKnownRequestError): string | undefined {
  const cause = (error.meta?.driverAdapterError as { cause?: DriverAdapterCause } | undefined)?.cause;
  return cause?.constraint?.index ?? /constraint "([^"]+)"/.exec(cause?.originalMessage ?? '')?.[1];
}
