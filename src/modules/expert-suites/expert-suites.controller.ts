import { Body, Controller, Param, Patch, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { AppConfig } from '../../config/app-config';
import { ExpertSuiteDto } from './dto/expert-suite.dto';
import { UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import { ExpertSuitesService } from './expert-suites.service';
import { publicBaseUrl } from './uploads/public-base-url';
import { ExpertSuitesScope } from './expert-suites.scopes';

@ApiTags('Expert suites')
@Controller('api/openapi/v1/expert-suites')
export class ExpertSuitesController {
  constructor(
    private readonly expertSuites: ExpertSuitesService,
    private readonly config: AppConfig,
  ) {}

  @Patch(':resourceId')
  @RequireScope(ExpertSuitesScope.Manage)
  @ApiOperation({
    operationId: 'updateExpertSuite',
    summary: 'Update expert suite',
    description:
      'Changes display information, version, icon, client scope, status or category of an expert suite, or applies ' +
      'an uploaded resource package (upload_id). Every change is checked and written in one transaction: a refused ' +
      'request changes nothing. A request that changes something increments `revision` by exactly 1 (a category ' +
      'change also increments `market_item_revision`); one that changes nothing returns the suite as stored, ' +
      'revisions and updated_at untouched.',
  })
  @ApiParam({ name: 'resourceId', format: 'uuid', description: 'Identifier of the expert suite.' })
  @ApiOkResponse({ type: ExpertSuiteDto, description: 'The current or updated expert suite.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A field or the path parameter breaks its schema (details names it), fields conflict, or a count or version disagrees with the package.'],
    [ErrorCode.INVALID_JSON, 'The body is not parseable JSON.'],
    [ErrorCode.NOT_FOUND, 'The organization has no such expert suite.'],
    [ErrorCode.REVISION_CONFLICT, 'expected_revision differs from the stored revision (details.suggestion is the current one); nothing changed.'],
    [ErrorCode.MARKET_ITEM_REVISION_CONFLICT, 'expected_market_item_revision differs from the stored one; nothing changed.'],
    [ErrorCode.INVALID_STATUS_TRANSITION, 'The requested status cannot follow the current one.'],
    [ErrorCode.PAYLOAD_TOO_LARGE, 'The body is larger than the configured limit.'],
    [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The body is not application/json.'],
    [ErrorCode.CATEGORY_NOT_FOUND, 'The organization has no such category.'],
    [ErrorCode.UPLOAD_NOT_FOUND, 'The organization has no such upload.'],
    [ErrorCode.UPLOAD_NOT_USABLE, 'The upload has expired or is of the wrong kind.'],
    [ErrorCode.PACKAGE_REQUIRED, 'Publishing needs a resource package.'],
  )
  update(
    @Param('resourceId', UuidParamPipe) resourceId: string,
    @Body() body: UpdateExpertSuiteDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
  ): Promise<ExpertSuiteDto> {
    return this.expertSuites.update(principal.organizationId, resourceId, body, publicBaseUrl(this.config, request));
  }
}
