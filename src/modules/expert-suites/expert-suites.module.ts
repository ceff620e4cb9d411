import { Module } from '@nestjs/common';
import { UploadsModule } from '../uploads/uploads.module';
import { CategoriesRepository } from './categories.repository';
import { ExpertSuitesController } from './expert-suites.controller';
import { ExpertSuitesRepository } from './expert-suites.repository';
import { ExpertSuitesService } from './expert-suites.service';

@Module({
  imports: [UploadsModule],
  controllers: [ExpertSuitesController],
  providers: [ExpertSuitesService, ExpertSuitesRepository, CategoriesRepository],
})
export class ExpertSuitesModule {}
