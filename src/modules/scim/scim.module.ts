import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { UsersModule } from '../users/users.module';
import { SCIM_ERROR_REPLY } from './scim-error-reply';
import { ScimDiscoveryController } from './scim-discovery.controller';
import { ScimUsersController } from './scim-users.controller';
import { ScimUsersService } from './scim-users.service';
import { ScimScopeDefinitions } from './scim.scopes';

/** SCIM 2.0 at /scim/v2 (CONTRACT.md section 12): a second door to the directory, whose users it reads and writes through UsersService. */
@Module({
  imports: [UsersModule],
  controllers: [ScimUsersController, ScimDiscoveryController],
  providers: [ScimUsersService],
})
export class ScimModule {
  static readonly definitions: ModuleDefinitions = { scopes: ScimScopeDefinitions, errorReplyFormats: [SCIM_ERROR_REPLY] };
}
