import { HttpStatus } from '@nestjs/common';
import { defineErrorCode } from '../../common/errors/error-code';

export const WebhooksError = {
  WEBHOOK_ENDPOINT_LIMIT_REACHED: defineErrorCode('WEBHOOK_ENDPOINT_LIMIT_REACHED', HttpStatus.UNPROCESSABLE_ENTITY),
} as const;
