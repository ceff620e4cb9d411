import { Logger } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import type { PoolUsage } from './database-pool';
import { databaseWait, isDatabaseUnavailable } from './database-unavailable';

/** Statements that only read: what a read replica takes (TransactionHost.replica). */
export interface SqlReads {
  query<T>(statement: Prisma.Sql): Promise<T[]>;
}

/** The replica's own connections: readiness's ping and the pool's state (for the metrics). */
export interface ReplicaConnections {
  ping(): Promise<void>;
  poolUsage(): PoolUsage;
}

/**
 * After a read found the replica unreachable, how long reads go to the primary before one tries
 * the replica again: a replica that is down costs one failed attempt per instance this often,
 * not one per request.
 */
export const REPLICA_RETRY_AFTER_MS = 5000;

/**
 * The driver adapter's kind for SQLSTATE 40001/40P01. A read on a hot standby gets it when replay
 * has to remove rows the statement still reads ("conflict with recovery"), never from a write:
 * nothing is written there.
 */
const RECOVERY_CONFLICT_KIND = 'TransactionWriteConflict';

function isRecoveryConflict(error: unknown): boolean {
  return (error as { cause?: { kind?: unknown } } | undefined)?.cause?.kind === RECOVERY_CONFLICT_KIND;
}

/**
 * Reads on the replica (DATABASE_REPLICA_URL), failing over to the primary: a read the replica
 * cannot answer because it is unreachable, because replay cancelled it or because its pool stayed
 * busy is sent to the primary, which holds everything the replica holds and more; after an
 * unreachable replica, reads go to the primary for REPLICA_RETRY_AFTER_MS. A fault of the read
 * itself (bad SQL, a statement past its deadline) is answered as it would be on the primary.
 * An outage is logged once per episode, as DatabaseOutageLog does.
 */
export class ReadReplica implements SqlReads {
  private readonly logger = new Logger('Database');
  /** Set while the replica is out: until then reads go to the primary (performance.now() time). */
  private primaryUntil: number | undefined;

  constructor(
    private readonly replica: SqlReads,
    private readonly primary: SqlReads,
    private readonly connections: ReplicaConnections,
    private readonly retryAfterMs = REPLICA_RETRY_AFTER_MS,
  ) {}

  /** The replica pool right now. */
  poolUsage(): PoolUsage {
    return this.connections.poolUsage();
  }

  query<T>(statement: Prisma.Sql): Promise<T[]> {
    if (this.primaryUntil === undefined) return this.replica.query<T>(statement).catch((error: unknown) => this.failOver<T>(error, statement));
    if (performance.now() < this.primaryUntil) return this.primary.query<T>(statement);
    return this.replica.query<T>(statement).then(
      (rows) => {
        this.replicaAnswers();
        return rows;
      },
      (error: unknown) => this.failOver<T>(error, statement),
    );
  }

  /** True while reads are sent to the primary because the replica failed. */
  get isOut(): boolean {
    return this.primaryUntil !== undefined;
  }

  /** Readiness: whether the replica answers `SELECT 1` on a connection of its own; a failure counts as a failed read. */
  async check(): Promise<boolean> {
    try {
      await this.connections.ping();
    } catch (error) {
      this.out(error);
      return false;
    }
    this.replicaAnswers();
    return true;
  }

  private failOver<T>(error: unknown, statement: Prisma.Sql): Promise<T[]> {
    if (isDatabaseUnavailable(error)) this.out(error);
    // A conflict with recovery is one statement's bad luck, and a replica pool whose every
    // connection stayed busy (or is still connecting) is overloaded, not out: this read goes to
    // the primary, the next ones try the replica again.
    else if (!isRecoveryConflict(error) && databaseWait(error) !== 'pool') throw error;
    return this.primary.query<T>(statement);
  }

  private out(error: unknown): void {
    if (this.primaryUntil === undefined) {
      this.logger.warn(`Read replica unavailable, its reads go to the primary (DATABASE_URL) until it answers: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.primaryUntil = performance.now() + this.retryAfterMs;
  }

  private replicaAnswers(): void {
    if (this.primaryUntil === undefined) return;
    this.primaryUntil = undefined;
    this.logger.log('Read replica available again; lag-tolerant reads go to it');
  }
}
