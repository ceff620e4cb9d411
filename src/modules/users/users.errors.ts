import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const UsersError = {
  USER_NAME_CONFLICT: defineErrorCode('USER_NAME_CONFLICT', HttpStatus.CONFLICT),
  // The code departments answer for their external_id too (one code, one status: defineErrorCode allows the repeat).
  EXTERNAL_ID_CONFLICT: defineErrorCode('EXTERNAL_ID_CONFLICT', HttpStatus.CONFLICT),
  DEPARTMENT_NOT_FOUND: defineErrorCode('DEPARTMENT_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  PRIMARY_DEPARTMENT_NOT_MEMBER: defineErrorCode('PRIMARY_DEPARTMENT_NOT_MEMBER', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
