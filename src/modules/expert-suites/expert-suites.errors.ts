import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';
import { REVISION_CONFLICT } from '../../common/http/write-preconditions';

export const ExpertSuitesError = {
  REVISION_CONFLICT,
  MARKET_ITEM_REVISION_CONFLICT: defineErrorCode('MARKET_ITEM_REVISION_CONFLICT', HttpStatus.CONFLICT),
  INVALID_STATUS_TRANSITION: defineErrorCode('INVALID_STATUS_TRANSITION', HttpStatus.CONFLICT),
  CATEGORY_NOT_FOUND: defineErrorCode('CATEGORY_NOT_FOUND', HttpStatus.UNPROCESSABLE_ENTITY),
  PACKAGE_REQUIRED: defineErrorCode('PACKAGE_REQUIRED', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
