import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { AppConfig } from '../../config/app-config';
import { DatabaseUploadStorage } from './database-upload-storage';
import { largestUploadBytes } from './multipart-errors.interceptor';
import { UploadLookupService } from './upload-lookup.service';
import { UploadPurger } from './upload-purger';
import { UploadQuota } from './upload-quota';
import { UploadReceiver } from './upload-receiver';
import { UploadReceivingModule } from './upload-receiving.module';
import { UploadStorage } from './upload-storage';
import { UploadsAudit } from './uploads.audit';
import { UploadsController } from './uploads.controller';
import { UploadsError } from './uploads.errors';
import { UploadsService } from './uploads.service';

/**
 * Uploaded resource packages and icons (docs/uploads.md): the multipart upload, the public icon
 * route, storage and the purge of expired uploads; the repositories (UploadsRepository,
 * UploadChunksRepository) come with UploadReceivingModule. Exports the lookup other modules apply
 * uploads with (expert suites: upload_id, icon_upload_id).
 */
@Module({
  imports: [
    MulterModule.registerAsync({
      imports: [UploadReceivingModule],
      inject: [AppConfig, UploadReceiver],
      // Packages are streamed into the database where it has a pool, the rest held in memory
      // (UploadReceiver); in both cases a file is checked whole before it is kept.
      useFactory: (config: AppConfig, storage: UploadReceiver) => ({
        storage,
        limits: { fileSize: largestUploadBytes(config), files: 1, fields: 4, fieldSize: 1024, parts: 5 },
      }),
    }),
    UploadReceivingModule,
  ],
  controllers: [UploadsController],
  providers: [
    UploadsService,
    UploadQuota,
    UploadLookupService,
    UploadPurger,
    { provide: UploadStorage, useClass: DatabaseUploadStorage },
  ],
  exports: [UploadLookupService],
})
export class UploadsModule {
  /** No scopes of its own: its routes take the expert suites' manage scope. */
  static readonly definitions: ModuleDefinitions = { errors: UploadsError, auditActions: UploadsAudit };
}
