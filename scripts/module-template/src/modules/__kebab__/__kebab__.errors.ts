import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const __Plural__Error = {
  __SINGULAR_UPPER___NAME_CONFLICT: defineErrorCode('__SINGULAR_UPPER___NAME_CONFLICT', HttpStatus.CONFLICT),
} as const;
