import { Logger } from '@nestjs/common';
import type { Clock } from '../clock';
import type { ApiKeysRepository } from './api-keys.repository';
import type { VerifiedKeyCache } from './verified-key-cache';

/**
 * Where the database has no LISTEN/NOTIFY (DATABASE_NOTIFICATIONS=off): reads the revocation
 * version (ApiKeysRepository.readRevocationVersion) every `intervalMs` through the pool (a pooler
 * in transaction mode serves it too) and empties the key cache when it changed. A read that succeeds lets the cache answer until two
 * intervals after it started; a failed one stops it answering at once, so a revocation takes
 * effect on this instance within one interval (two when a read is slow), whatever happens.
 */
export class RevocationVersionPoller {
  private readonly logger = new Logger('ApiKeyRevocations');
  private timer?: NodeJS.Timeout;
  private version?: string;
  private running = false;
  private failing = false;

  constructor(
    private readonly apiKeys: Pick<ApiKeysRepository, 'readRevocationVersion'>,
    private readonly cache: VerifiedKeyCache,
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  /** Polls once now (so the cache works from the start), then every interval until `stop`. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.cache.setListening(false);
  }

  /** One read; a read still going when the next is due is not started twice. */
  async poll(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const startedAtMs = this.clock.now().getTime();
    try {
      const version = await this.apiKeys.readRevocationVersion();
      if (version === undefined) throw new Error('the api_key_revocation_version row is missing (run the migrations)');
      if (this.version !== undefined && version !== this.version) this.cache.someRevoked();
      this.version = version;
      this.cache.heardUntil(startedAtMs + 2 * this.intervalMs);
      if (this.failing) this.logger.log('Reading the API key revocation version again: verified keys are cached from now on.');
      this.failing = false;
    } catch (error) {
      this.cache.setListening(false);
      if (!this.failing) this.logger.warn(`Could not read the API key revocation version (${(error as Error).message}): every key is checked in the database until it can.`);
      this.failing = true;
    } finally {
      this.running = false;
    }
  }
}
