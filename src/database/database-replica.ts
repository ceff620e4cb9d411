import type { ReadReplica } from './read-replica';

/** Injection token for the open database's read replica (Database.replica): undefined without DATABASE_REPLICA_URL. */
export abstract class DatabaseReplica {
  abstract readonly replica: ReadReplica | undefined;
}
