import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const UploadsError = {
  UPLOAD_NOT_FOUND: defineErrorCode('UPLOAD_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  UPLOAD_NOT_USABLE: defineErrorCode('UPLOAD_NOT_USABLE', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
