import type { SqlQuery } from '@prisma/driver-adapter-utils';

/**
 * Names the first `limit` distinct statement texts the service sends through its SQL driver, so
 * that each pooled connection parses and plans them once (a PostgreSQL prepared statement) instead
 * of on every request: PATCH went from 0.46 to 0.79 of the lean baseline's throughput on 2 cores
 * (docs/adr/0003-prepared-statements-per-connection.md). Texts beyond the limit go unnamed, so that bodies choosing many different
 * field combinations cannot make every connection hold an unbounded number of statements.
 * Undefined (all unnamed) when `limit` is 0, for poolers that cannot carry named statements.
 */
export function preparedStatementNames(limit: number): ((query: SqlQuery) => string) | undefined {
  if (limit === 0) return undefined;
  const names = new Map<string, string>();
  const nameOf = (query: SqlQuery): string | undefined => {
    let name = names.get(query.sql);
    if (name === undefined && names.size < limit) names.set(query.sql, (name = `wsa_${names.size + 1}`));
    return name;
  };
  // The adapter's type says string, but it passes the name to pg, for which undefined means unnamed.
  return nameOf as (query: SqlQuery) => string;
}
