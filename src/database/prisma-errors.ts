import { Prisma } from '../generated/prisma/client';

/** A unique constraint refused the write; `target` names the constraint or columns where known. */
export function isUniqueViolation(error: unknown): error is Prisma.PrismaClientKnownRequestError {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
