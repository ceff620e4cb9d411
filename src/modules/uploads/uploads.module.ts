import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { AppConfig } from '../../config/app-config';
import { LocalDiskUploadStorage } from './local-disk-upload-storage';
import { largestUploadBytes } from './multipart-errors.interceptor';
import { UploadLookupService } from './upload-lookup.service';
import { UploadPurger } from './upload-purger';
import { UploadStorage } from './upload-storage';
import { UploadsController } from './uploads.controller';
import { UploadsService } from './uploads.service';

/**
 * Uploaded resource packages and icons (docs/uploads.md): the multipart upload, the public icon
 * route, storage and the purge of expired uploads. Exports the lookup other modules apply uploads
 * with (expert suites: upload_id, icon_upload_id).
 */
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
  controllers: [UploadsController],
  providers: [
    UploadsService,
    UploadLookupService,
    UploadPurger,
    { provide: UploadStorage, inject: [AppConfig], useFactory: (config: AppConfig) => new LocalDiskUploadStorage(config.UPLOAD_DIR) },
  ],
  exports: [UploadLookupService],
})
export class UploadsModule {}
