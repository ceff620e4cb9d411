import type { PGlite } from '@electric-sql/pglite';
import type { ClientBase } from 'pg';

/** The little raw SQL the migration runner needs, over either database driver. */
export interface SqlSession {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
}

export function pgSession(client: ClientBase): SqlSession {
  return {
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    exec: async (sql: string) => {
      await client.query(sql);
    },
  };
}

export function pgliteSession(pglite: PGlite): SqlSession {
  return {
    query: async <T>(sql: string, params: unknown[] = []) => (await pglite.query<T>(sql, params)).rows,
    exec: async (sql: string) => {
      await pglite.exec(sql);
    },
  };
}
