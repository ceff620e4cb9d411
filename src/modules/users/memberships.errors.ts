import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const MembershipsError = {
  USER_DEPARTMENT_LIMIT_REACHED: defineErrorCode('USER_DEPARTMENT_LIMIT_REACHED', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
