import { Module } from '@nestjs/common';
import { UploadAdmission } from './upload-admission';
import { UploadAdmissionInterceptor } from './upload-admission.interceptor';
import { UploadChunksRepository } from './upload-chunks.repository';
import { UploadReceiver } from './upload-receiver';
import { UploadsRepository } from './uploads.repository';

/**
 * How upload bodies are received: the per-instance admission, multer's storage engine and the
 * repositories it writes through. Its own module so that the multer options
 * (MulterModule.registerAsync) and the uploads module share one instance of each.
 */
@Module({
  providers: [UploadAdmission, UploadAdmissionInterceptor, UploadReceiver, UploadsRepository, UploadChunksRepository],
  exports: [UploadAdmission, UploadAdmissionInterceptor, UploadReceiver, UploadsRepository, UploadChunksRepository],
})
export class UploadReceivingModule {}
