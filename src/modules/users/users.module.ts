import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { UsersAudit } from './users.audit';
import { UsersError } from './users.errors';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({ controllers: [UsersController], providers: [UsersService, UsersRepository] })
export class UsersModule {
  // The directory's scopes guard the users' routes: DirectoryModule lists them.
  static readonly definitions: ModuleDefinitions = { errors: UsersError, auditActions: UsersAudit };
}
