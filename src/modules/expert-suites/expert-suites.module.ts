import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { AppConfig } from '../../config/app-config';
import { ExpertSuitesController } from './expert-suites.controller';
import { ExpertSuitesService } from './expert-suites.service';
import { LocalDiskUploadStorage } from './uploads/local-disk-upload-storage';
import { largestUploadBytes } from './uploads/multipart-errors.interceptor';
import { UploadLookupService } from './uploads/upload-lookup.service';
import { UploadPurger } from './uploads/upload-purger';
import { UploadStorage } from './uploads/upload-storage';
import { UploadsController } from './uploads/uploads.controller';
import { UploadsService } from './uploads/uploads.service';

@Module({
  imports: [
    MulterModule.registerAsync({
      inject: [AppConfig],
      // In memory: a file is checked whole before it is stored, and is at most the larger upload limit.
      useFactory: (config: AppConfig) => ({
        limits: { fileSize: largestUploadBytes(config), files: 1, fields: 4, fieldSize: 1024, parts: 5 },
      }),
    }),
  ],
  controllers: [ExpertSuitesController, UploadsController],
  providers: [
    ExpertSuitesService,
    UploadsService,
    UploadLookupService,
    UploadPurger,
    { provide: UploadStorage, inject: [AppConfig], useFactory: (config: AppConfig) => new LocalDiskUploadStorage(config.UPLOAD_DIR) },
  ],
})
export class ExpertSuitesModule {}
