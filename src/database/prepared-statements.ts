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
  // Keyed by length, not by text: each request builds its texts anew, and a new string of a few
  // kB costs ~3x more to hash (as a Map key) than to compare with the one known text of its length.
  const namedByLength = new Map<number, { text: string; name: string }[]>();
  let named = 0;
  const nameOf = (query: SqlQuery): string | undefined => {
    const text = query.sql;
    let sameLength = namedByLength.get(text.length);
    if (sameLength) for (const known of sameLength) if (known.text === text) return known.name;
    if (named === limit) return undefined;
    if (!sameLength) namedByLength.set(text.length, (sameLength = []));
    const name = `wsa_${++named}`;
    sameLength.push({ text, name });
    return name;
  };
  // The adapter's type says string, but it passes the name to pg, for which undefined means unnamed.
  return nameOf as (query: SqlQuery) => string;
}
