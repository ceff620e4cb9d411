import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { DepartmentsController } from './departments.controller';
import { DepartmentsRepository } from './departments.repository';
import { DepartmentsService } from './departments.service';
import { DirectoryAudit } from './directory.audit';
import { DirectoryError } from './directory.errors';
import { DirectoryScopeDefinitions } from './directory.scopes';

// SCIM's Groups are these departments: its module changes them through this service.
@Module({ controllers: [DepartmentsController], providers: [DepartmentsService, DepartmentsRepository], exports: [DepartmentsService] })
export class DirectoryModule {
  static readonly definitions: ModuleDefinitions = { scopes: DirectoryScopeDefinitions, errors: DirectoryError, auditActions: DirectoryAudit };
}
