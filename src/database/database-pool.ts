/** A PostgreSQL connection pool right now (for the metrics). */
export interface PoolUsage {
  inUse: number;
  idle: number;
  /** Requests queued for a connection. */
  waiting: number;
}

/** Injection token for the state of the open database's connection pool (Database.poolUsage). */
export abstract class DatabasePool {
  abstract poolUsage(): PoolUsage | undefined;
}
