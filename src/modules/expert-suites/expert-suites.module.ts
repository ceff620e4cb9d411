import { Module } from '@nestjs/common';
import { UploadsModule } from '../uploads/uploads.module';
import { ExpertSuitesController } from './expert-suites.controller';
import { ExpertSuitesService } from './expert-suites.service';

@Module({
  imports: [UploadsModule],
  controllers: [ExpertSuitesController],
  providers: [ExpertSuitesService],
})
export class ExpertSuitesModule {}
