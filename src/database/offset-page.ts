import { Prisma } from '../generated/prisma/client';

/**
 * `OFFSET … LIMIT …` of a page of an offset-paged list (SCIM's startIndex and count). The first page
 * has no OFFSET: with a parameter there, PostgreSQL's generic plan of the prepared statement is
 * estimated dearer than a custom one, so the statement was planned anew at every execution (on
 * tables not yet analyzed: twice the database's CPU of a provider's `userName eq` lookup).
 */
export function offsetPage(offset: number, limit: number): Prisma.Sql {
  return offset > 0 ? Prisma.sql`OFFSET ${offset} LIMIT ${limit}` : Prisma.sql`LIMIT ${limit}`;
}
