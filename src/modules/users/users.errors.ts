import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';
import { DirectoryError } from '../directory/directory.errors';

export const UsersError = {
  USER_NAME_CONFLICT: defineErrorCode('USER_NAME_CONFLICT', HttpStatus.CONFLICT),
  // The code departments answer for their external_id: one definition, which the registries take once.
  EXTERNAL_ID_CONFLICT: DirectoryError.EXTERNAL_ID_CONFLICT,
  DEPARTMENT_NOT_FOUND: defineErrorCode('DEPARTMENT_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  PRIMARY_DEPARTMENT_NOT_MEMBER: defineErrorCode('PRIMARY_DEPARTMENT_NOT_MEMBER', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
