import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthGuard } from './api-key-auth.guard';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { ScopeGuard } from './scope.guard';

/** Global guards run in the order listed: authenticate first, then check the scope. */
@Module({
  providers: [
    ApiKeyAuthenticator,
    { provide: APP_GUARD, useClass: ApiKeyAuthGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
  ],
})
export class AuthModule {}
