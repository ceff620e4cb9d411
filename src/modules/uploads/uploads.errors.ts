import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const UploadsError = {
  UPLOAD_NOT_FOUND: defineErrorCode('UPLOAD_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  UPLOAD_NOT_USABLE: defineErrorCode('UPLOAD_NOT_USABLE', HttpStatus.UNPROCESSABLE_ENTITY),
  /** The organization's stored uploads and this one would pass UPLOAD_STORAGE_QUOTA_BYTES. */
  UPLOAD_QUOTA_EXCEEDED: defineErrorCode('UPLOAD_QUOTA_EXCEEDED', HttpStatus.PAYLOAD_TOO_LARGE),
} as const;
