/** Injection token for asking the open database whether it answers (Database.ping), outside the pool. */
export abstract class DatabasePing {
  abstract ping(): Promise<void>;
}
