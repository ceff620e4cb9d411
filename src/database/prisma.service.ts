import { PrismaClient } from '../generated/prisma/client';

/**
 * Injection token for the Prisma client of the open database. The instance is created by
 * openDatabase (driver adapter for PostgreSQL or PGlite), so this class is only a typed token.
 */
export abstract class PrismaService extends PrismaClient {}
