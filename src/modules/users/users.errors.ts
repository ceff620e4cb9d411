import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const UsersError = {
  USER_NAME_CONFLICT: defineErrorCode('USER_NAME_CONFLICT', HttpStatus.CONFLICT),
} as const;
