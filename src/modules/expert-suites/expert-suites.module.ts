import { Module } from '@nestjs/common';
import { ExpertSuitesController } from './expert-suites.controller';
import { ExpertSuitesService } from './expert-suites.service';
import { UploadLookupService } from './uploads/upload-lookup.service';

@Module({
  controllers: [ExpertSuitesController],
  providers: [ExpertSuitesService, UploadLookupService],
})
export class ExpertSuitesModule {}
