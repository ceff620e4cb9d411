import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';

/**
 * Logs a database outage as one episode instead of a line per request: a warning when the first
 * request finds the database unavailable, then one line when it is reachable again, with how long
 * it lasted and how many requests were answered without it (503 or stale) meanwhile.
 */
@Injectable()
export class DatabaseOutageLog {
  private readonly logger = new Logger('Database');
  private startedAt: Date | undefined;
  private affected = 0;

  constructor(private readonly clock: Clock) {}

  /** A request could not use the database; `cause` is logged only for the first one of an outage. */
  unavailable(cause: string): void {
    this.affected++;
    if (this.startedAt) return;
    this.startedAt = this.clock.now();
    this.logger.warn(`Database unavailable, answering 503 or stale data until it is back: ${cause}`);
  }

  /** A query succeeded: closes the outage, if one was going on. */
  available(): void {
    if (!this.startedAt) return;
    const seconds = (this.clock.now().getTime() - this.startedAt.getTime()) / 1000;
    this.logger.log(`Database available again after ${seconds.toFixed(1)} s; ${this.affected} requests were answered without it`);
    this.startedAt = undefined;
    this.affected = 0;
  }
}
