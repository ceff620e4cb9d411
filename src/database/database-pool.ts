import type { PoolUsage } from './database';

/** Injection token for the state of the open database's connection pool (Database.poolUsage). */
export abstract class DatabasePool {
  abstract poolUsage(): PoolUsage | undefined;
}
