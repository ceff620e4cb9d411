import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DatabaseNotifications } from '../../database/database-notifications';
import type { NotificationSubscription } from '../../database/notifications';
import { Clock } from '../clock';
import { API_KEY_REVOKED_CHANNEL, ApiKeysRepository } from './api-keys.repository';
import { RevocationVersionPoller } from './revocation-version-poller';
import { VerifiedKeyCache } from './verified-key-cache';

/**
 * Feeds the revocations every instance hears on the database into this instance's key cache:
 * through LISTEN, or, with DATABASE_NOTIFICATIONS=off, by polling the revocation version.
 */
@Injectable()
export class ApiKeyRevocations implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyRevocations.name);
  private subscription?: NotificationSubscription;
  private poller?: RevocationVersionPoller;
  private listening = false;
  private stopping = false;

  constructor(
    private readonly notifications: DatabaseNotifications,
    private readonly cache: VerifiedKeyCache,
    private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysRepository,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.cache.enabled) return;
    if (this.config.DATABASE_NOTIFICATIONS === 'off') {
      this.poller = new RevocationVersionPoller(this.apiKeys, this.cache, this.clock, this.config.API_KEY_REVOCATION_POLL_MS);
      await this.poller.start();
      return;
    }
    this.subscription = await this.notifications.listen(API_KEY_REVOKED_CHANNEL, {
      onNotify: (apiKeyId) => this.cache.revoked(apiKeyId),
      onListening: (listening) => this.onListening(listening),
    });
    if (!this.listening) this.logger.warn('Not listening for API key revocations yet: every key is checked in the database until then.');
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.poller?.stop();
    await this.subscription?.close();
  }

  private onListening(listening: boolean): void {
    this.cache.setListening(listening);
    if (this.listening && !listening && !this.stopping) {
      this.logger.warn('Lost the connection listening for API key revocations: every key is checked in the database until it is back.');
    } else if (!this.listening && listening && this.subscription) {
      this.logger.log('Listening for API key revocations: verified keys are cached from now on.');
    }
    this.listening = listening;
  }
}
