import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const DirectoryError = {
  DEPARTMENT_NAME_CONFLICT: defineErrorCode('DEPARTMENT_NAME_CONFLICT', HttpStatus.CONFLICT),
  EXTERNAL_ID_CONFLICT: defineErrorCode('EXTERNAL_ID_CONFLICT', HttpStatus.CONFLICT),
  PARENT_NOT_FOUND: defineErrorCode('PARENT_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  DEPARTMENT_CYCLE: defineErrorCode('DEPARTMENT_CYCLE', HttpStatus.CONFLICT),
  DEPARTMENT_TOO_DEEP: defineErrorCode('DEPARTMENT_TOO_DEEP', HttpStatus.UNPROCESSABLE_ENTITY),
  DEPARTMENT_NOT_EMPTY: defineErrorCode('DEPARTMENT_NOT_EMPTY', HttpStatus.CONFLICT),
} as const;
