import { escapeLiteral } from 'pg';
import type { Prisma } from '../generated/prisma/client';

/**
 * The statement's text with its values written in as SQL literals, for the one place a statement
 * cannot carry parameters: a simple-protocol query that holds several statements (the last
 * statement of a transaction sent with its COMMIT, sql-driver.ts). Strings are quoted by pg's
 * escapeLiteral, which stays correct whatever standard_conforming_strings is; only the scalar
 * types below are accepted, so that nothing is written in as text that would not be read back
 * the same.
 */
export function inlineStatement(statement: Prisma.Sql): string {
  const { strings, values } = statement;
  let text = strings[0];
  for (let index = 0; index < values.length; index++) text += literal(values[index]) + strings[index + 1];
  return text;
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  switch (typeof value) {
    case 'string':
      return escapeLiteral(value);
    case 'boolean':
      return value ? 'TRUE' : 'FALSE';
    case 'bigint':
      return `(${value.toString()})`;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} cannot be written into a statement as a SQL literal`);
      return `(${String(value)})`;
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return escapeLiteral(value.toISOString());
  throw new TypeError(`A ${Object.prototype.toString.call(value).slice(8, -1)} cannot be written into a statement as a SQL literal; pass it as a parameter`);
}
