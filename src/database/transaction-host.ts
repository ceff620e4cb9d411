import { Injectable, Optional } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma } from '../generated/prisma/client';
import { DatabaseReplica } from './database-replica';
import { PrismaService } from './prisma.service';
import type { SqlReads } from './read-replica';
import { SqlDriver } from './sql-driver';
import type { SqlHost } from './sql-host';
import { clientQueries, type SqlQueries } from './sql-queries';

export type DatabaseClient = Prisma.TransactionClient;

/** The transaction the caller is in: a Prisma client's (model queries and raw SQL) or a SQL one (raw SQL only). */
type OpenTransaction = { client: DatabaseClient | undefined; sql: SqlQueries };

/**
 * The one way services reach the database. `tx` (model queries) and `sql` (raw statements) belong
 * to the transaction the caller is in, or run on their own outside one, so that a write joins a
 * transaction opened further up (the idempotency record and the department commit together)
 * without a client being passed through every call. Request context is kept only inside a
 * transaction: nothing runs per request.
 *
 * Two kinds of transaction: `withTransaction` is the Prisma client's and takes both kinds of
 * query; `withSqlTransaction` runs on the driver adapter and takes raw statements only, for work
 * whose every statement is raw (docs/adr/0002-hot-statements-on-the-sql-driver-adapter.md: it saves the client's per-statement cost).
 * Inside a client transaction a SQL transaction simply joins it. A service that writes only raw
 * statements injects it as `SqlHost` (sql-host.ts), which declares that kind.
 *
 * `replica` is for reads that may lag behind the latest writes (lists, the metering policy): on
 * DATABASE_REPLICA_URL when one is set, else the same as `sql`; inside a transaction it is the
 * transaction's, so a read within a write always sees the primary.
 */
@Injectable()
export class TransactionHost implements SqlHost {
  private readonly current = new AsyncLocalStorage<OpenTransaction>();
  private readonly plainSql: SqlQueries;
  private readonly replicaReads: SqlReads;

  /** Without a driver (the CLI's admin tools) raw statements and SQL transactions run on the client, and there is no replica. */
  constructor(
    private readonly prisma: PrismaService,
    @Optional() private readonly driver?: SqlDriver,
    @Optional() database?: DatabaseReplica,
  ) {
    this.plainSql = driver?.queries ?? clientQueries(prisma);
    this.replicaReads = database?.replica ?? this.plainSql;
  }

  /** For model queries. */
  get tx(): DatabaseClient {
    const open = this.current.getStore();
    if (!open) return this.prisma;
    if (!open.client) throw new Error('Model queries cannot join a SQL transaction (withSqlTransaction): write with txHost.sql, or open a client transaction (withTransaction)');
    return open.client;
  }

  /** For raw statements (`Prisma.sql` templates). */
  get sql(): SqlQueries {
    return this.current.getStore()?.sql ?? this.plainSql;
  }

  /**
   * For raw reads that may lag behind the latest writes: the read replica's (DATABASE_REPLICA_URL),
   * or the primary's when none is set or it is unreachable, or the transaction's inside one.
   */
  get replica(): SqlReads {
    return this.current.getStore()?.sql ?? this.replicaReads;
  }

  /** Runs `work` in a Prisma client transaction, joining the caller's when there is one; rolls back when it throws. */
  withTransaction<T>(work: () => Promise<T>): Promise<T> {
    const open = this.current.getStore();
    if (open?.client) return work();
    if (open) return Promise.reject(new Error('A client transaction (withTransaction) cannot be opened inside a SQL transaction (withSqlTransaction)'));
    return this.prisma.$transaction((client) => this.current.run({ client, sql: clientQueries(client) }, work));
  }

  /**
   * Runs `work`, whose statements all go through `sql`, in a SQL transaction, or in the caller's
   * transaction when there is one. `timeoutMs` replaces TRANSACTION_TIMEOUT_MS for work that is
   * bounded otherwise (an upload received into its transaction ends with its request).
   */
  withSqlTransaction<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T> {
    if (this.current.getStore()) return work();
    if (!this.driver) return this.withTransaction(work);
    return this.driver.transaction((sql) => this.current.run({ client: undefined, sql }, work), timeoutMs);
  }
}
