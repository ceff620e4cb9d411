import { Module } from '@nestjs/common';
import { UploadAdmission } from './upload-admission';
import { UploadAdmissionInterceptor } from './upload-admission.interceptor';
import { UploadReceiver } from './upload-receiver';

/**
 * How upload bodies are received: the per-instance admission and multer's storage engine. Its own
 * module so that the multer options (MulterModule.registerAsync) and the uploads module share one
 * instance of each.
 */
@Module({
  providers: [UploadAdmission, UploadAdmissionInterceptor, UploadReceiver],
  exports: [UploadAdmission, UploadAdmissionInterceptor, UploadReceiver],
})
export class UploadReceivingModule {}
