import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { ModuleDefinitions } from '../registries/registries';
import { IdempotencyPurger } from './idempotency-purger';
import { IdempotencyError } from './idempotency.errors';
import { IdempotencyStore } from './idempotency.store';

/** Global, so that any module's route becomes idempotent by the @Idempotent() decorator alone. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [IdempotencyStore, IdempotencyPurger],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {
  static readonly definitions: ModuleDefinitions = { errors: IdempotencyError };
}
