import { Global, Module } from '@nestjs/common';
import { IdempotencyPurger } from './idempotency-purger';
import { IdempotencyStore } from './idempotency.store';

/** Global, so that any module's route becomes idempotent by the @Idempotent() decorator alone. */
@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyPurger],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
