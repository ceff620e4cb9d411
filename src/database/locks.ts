import { Prisma } from '../generated/prisma/client';

/**
 * The PostgreSQL lock idioms of the service, in one place: what each one is for, and the statements
 * use these fragments rather than spelling the clauses out. Correctness paths use row locks, unique
 * constraints and INSERT … ON CONFLICT only, which the distributed PostgreSQL-compatible engines
 * have too; the one advisory lock left is the migrations' (docs/scaling.md, "Portable SQL").
 */
export const RowLock = {
  /** Writers of one row queue here, on every instance, until the holder's transaction ends. */
  forUpdate: Prisma.raw('FOR UPDATE'),
  /**
   * Writers of what belongs to the row (an organization's webhook endpoints, under their limit) queue
   * here, while inserts whose foreign key points at the row (FOR KEY SHARE) go on.
   */
  forNoKeyUpdate: Prisma.raw('FOR NO KEY UPDATE'),
  /** A reader keeps the row from being deleted or changed until its transaction ends (a FOR UPDATE waits for it). */
  forShare: Prisma.raw('FOR SHARE'),
  /**
   * Batch jobs: each takes only rows nobody holds, so instances running the same job at once take
   * disjoint rows and never wait on each other or on a request. `of` names the table to lock in a join.
   * Work queues (the webhook outbox) lease what they skip-lock in a statement that commits at once:
   * the lease it writes, not a held row lock, keeps other instances off the row while the work runs
   * outside any transaction, and a claimer that dies leaves a lease that expires.
   */
  forUpdateSkipLocked: (of?: string) => Prisma.raw(of === undefined ? 'FOR UPDATE SKIP LOCKED' : `FOR UPDATE OF ${of} SKIP LOCKED`),
};

/**
 * Holds a session advisory lock `id` on `client` while `work` runs (waiting for it first): one holder
 * at a time, across instances. Only for the migrations, on a direct connection (DATABASE_DIRECT_URL);
 * src/database/portable-sql.spec.ts and test/portable-sql.e2e-spec.ts keep every other path off advisory locks.
 */
export async function withSessionAdvisoryLock<T>(client: { query(text: string, values: unknown[]): Promise<unknown> }, id: number, work: () => Promise<T>): Promise<T> {
  await client.query('SELECT pg_advisory_lock($1)', [id]);
  try {
    return await work();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [id]);
  }
}
