import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { UploadsModule } from '../uploads/uploads.module';
import { CategoriesRepository } from './categories.repository';
import { ExpertSuitesAudit } from './expert-suites.audit';
import { ExpertSuitesController } from './expert-suites.controller';
import { ExpertSuitesError } from './expert-suites.errors';
import { ExpertSuitesRepository } from './expert-suites.repository';
import { ExpertSuitesScopeDefinitions } from './expert-suites.scopes';
import { ExpertSuitesService } from './expert-suites.service';

@Module({
  imports: [UploadsModule],
  controllers: [ExpertSuitesController],
  providers: [ExpertSuitesService, ExpertSuitesRepository, CategoriesRepository],
})
export class ExpertSuitesModule {
  static readonly definitions: ModuleDefinitions = { scopes: ExpertSuitesScopeDefinitions, errors: ExpertSuitesError, auditActions: ExpertSuitesAudit };
}
