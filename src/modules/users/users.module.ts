import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { UsersAudit } from './users.audit';
import { UsersError } from './users.errors';
import { DepartmentMembersController } from './department-members.controller';
import { DepartmentMembersService } from './department-members.service';
import { MembershipsAudit } from './memberships.audit';
import { MembershipsError } from './memberships.errors';
import { MembershipsRepository } from './memberships.repository';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController, DepartmentMembersController],
  providers: [UsersService, UsersRepository, DepartmentMembersService, MembershipsRepository],
  // SCIM's Users are these users: its module writes them through this service; its Groups' members are these memberships.
  exports: [UsersService, MembershipsRepository],
})
export class UsersModule {
  // The directory's scopes guard the users' routes: DirectoryModule lists them.
  static readonly definitions: ModuleDefinitions = {
    errors: { ...UsersError, ...MembershipsError },
    auditActions: { ...UsersAudit, ...MembershipsAudit },
  };
}
