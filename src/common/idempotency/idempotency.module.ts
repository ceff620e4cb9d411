import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyPurger } from './idempotency-purger';
import { IdempotencyStore } from './idempotency.store';

/** Global, so that any module's route becomes idempotent by the @Idempotent() decorator alone. */
@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyInterceptor, IdempotencyPurger],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
