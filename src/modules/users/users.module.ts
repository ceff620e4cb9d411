import { Module } from '@nestjs/common';
import { DepartmentMembersController } from './department-members.controller';
import { DepartmentMembersService } from './department-members.service';
import { MembershipsRepository } from './memberships.repository';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController, DepartmentMembersController],
  providers: [UsersService, UsersRepository, DepartmentMembersService, MembershipsRepository],
})
export class UsersModule {}
