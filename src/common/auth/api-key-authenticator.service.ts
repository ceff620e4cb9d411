import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { isDatabaseUnavailable } from '../../database/database-unavailable';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { Metrics } from '../metrics/metrics';
import { hashApiKeyToken, isWellFormedApiKeyToken } from './api-key-token';
import { ApiKeysRepository } from './api-keys.repository';
import type { Principal } from './principal';
import { VerifiedKeyCache } from './verified-key-cache';

export interface AuthenticateOptions {
  /**
   * The route can answer from cached data during a database outage: remember the key once it
   * is verified, and accept a remembered key while the database cannot be reached.
   */
  rememberForOutage?: boolean;
}

@Injectable()
export class ApiKeyAuthenticator {
  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly config: AppConfig,
    private readonly cache: VerifiedKeyCache,
    private readonly metrics: Metrics,
  ) {}

  /**
   * The principal of a live key, or undefined for a malformed, unknown or revoked one. A key
   * verified recently comes from the cache, which drops it the moment its revocation is heard;
   * any other key is looked up in the database. When the database cannot be reached, this is a
   * 503 unless `rememberForOutage` allows a recently verified key.
   */
  async authenticate(token: string, options: AuthenticateOptions = {}): Promise<Principal | undefined> {
    if (!isWellFormedApiKeyToken(token)) return undefined;
    const hash = hashApiKeyToken(token);
    const cached = this.cache.get(hash);
    this.metrics.apiKeyCacheLookup(cached !== undefined);
    if (cached) {
      this.remember(hash, cached, options);
      return cached;
    }
    const lookup = this.cache.startLookup();
    let key;
    try {
      key = await this.apiKeys.findByHash(hash);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const remembered = options.rememberForOutage ? this.cache.recall(hash, this.config.API_KEY_OUTAGE_GRACE_SECONDS * 1000) : undefined;
      if (remembered) return remembered;
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The database is unreachable, so the API key cannot be checked. Retry later.');
    }
    if (!key || key.revokedAt !== null) {
      this.cache.forget(hash);
      return undefined;
    }
    // The index look-up already matched; the constant-time compare keeps the final check free of timing signal.
    if (!timingSafeEqual(Buffer.from(key.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
    const principal: Principal = { apiKeyId: key.id, organizationId: key.organizationId, scopes: key.scopes };
    this.cache.store(hash, principal, lookup);
    this.remember(hash, principal, options);
    return principal;
  }

  private remember(hash: string, principal: Principal, options: AuthenticateOptions): void {
    if (options.rememberForOutage) this.cache.remember(hash, principal);
  }
}
