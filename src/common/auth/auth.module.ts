import { Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../clock';
import { RedisThrottlerStorage } from '../rate-limit/redis-throttler-storage';
import { JsonBodyGuard } from '../http/json-body.guard';
import { QueryParametersGuard } from '../http/query-parameters.guard';
import { ApiKeyAuthGuard } from './api-key-auth.guard';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { ApiKeyRevocations } from './api-key-revocations';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { ScopeGuard } from './scope.guard';
import type { ModuleDefinitions } from '../registries/registries';
import { VerifiedKeyCache } from './verified-key-cache';
import { AuthAudit } from './auth.audit';
import { RequiredScopesCheck } from './required-scopes.check';

const ONE_MINUTE_MS = 60_000;

/**
 * Global guards run in the order listed: authenticate, rate-limit by key, check the scope, refuse
 * unknown query parameters, then read the JSON body (so that 401, 429 and 403 are decided before
 * a byte of the body is read).
 */
@Module({
  imports: [
    DiscoveryModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, Clock],
      useFactory: async (config: AppConfig, clock: Clock) => ({
        throttlers: [{ name: 'default', ttl: ONE_MINUTE_MS, limit: config.RATE_LIMIT_PER_MINUTE }],
        // Without Redis (or without any limit) the package's in-memory storage: each instance counts on its own.
        storage: config.REDIS_URL && (config.RATE_LIMIT_PER_MINUTE > 0 || config.AUTH_FAILURE_LIMIT_PER_MINUTE > 0) ? await RedisThrottlerStorage.connect(config.REDIS_URL, config.REDIS_KEY_PREFIX, clock) : undefined,
      }),
    }),
  ],
  providers: [
    VerifiedKeyCache,
    ApiKeysRepository,
    ApiKeyRevocations,
    ApiKeyAuthenticator,
    AuthFailureLimiter,
    RequiredScopesCheck,
    { provide: APP_GUARD, useClass: ApiKeyAuthGuard },
    { provide: APP_GUARD, useClass: ApiKeyThrottlerGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
    { provide: APP_GUARD, useClass: QueryParametersGuard },
    { provide: APP_GUARD, useClass: JsonBodyGuard },
  ],
})
export class AuthModule {
  /** The API keys' audit actions, written by the admin CLI (docs/audit.md). */
  static readonly definitions: ModuleDefinitions = { auditActions: AuthAudit };
}
