import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { DirectoryModule } from '../directory/directory.module';
import { UsersModule } from '../users/users.module';
import { SCIM_ERROR_REPLY } from './scim-error-reply';
import { ScimDiscoveryController } from './scim-discovery.controller';
import { ScimGroupsController } from './scim-groups.controller';
import { ScimGroupsRepository } from './scim-groups.repository';
import { ScimGroupsService } from './scim-groups.service';
import { ScimUsersController } from './scim-users.controller';
import { ScimUsersService } from './scim-users.service';
import { ScimScopeDefinitions } from './scim.scopes';

/** SCIM 2.0 at /scim/v2 (CONTRACT.md section 12): a second door to the directory, whose users it reads and writes through UsersService, its groups (departments) through DepartmentsService and the memberships' repository. */
@Module({
  imports: [UsersModule, DirectoryModule],
  controllers: [ScimUsersController, ScimGroupsController, ScimDiscoveryController],
  providers: [ScimUsersService, ScimGroupsService, ScimGroupsRepository],
})
export class ScimModule {
  static readonly definitions: ModuleDefinitions = { scopes: ScimScopeDefinitions, errorReplyFormats: [SCIM_ERROR_REPLY] };
}
