import { Body, Controller, Param, Patch, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { Scope } from '../../common/auth/scopes';
import { ErrorBodyDto } from '../../common/errors/error-body.dto';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { AppConfig } from '../../config/app-config';
import { ExpertSuiteDto } from './dto/expert-suite.dto';
import { UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import { ExpertSuitesService } from './expert-suites.service';
import { publicBaseUrl } from './uploads/public-base-url';

@ApiTags('expert-suites')
@Controller('api/openapi/v1/expert-suites')
export class ExpertSuitesController {
  constructor(
    private readonly expertSuites: ExpertSuitesService,
    private readonly config: AppConfig,
  ) {}

  @Patch(':resourceId')
  @RequireScope(Scope.ExpertSuitesManage)
  @ApiOperation({
    summary: 'Update expert suite',
    description:
      'Changes display information, version, icon, client scope, status or category of an expert suite, or applies ' +
      'an uploaded resource package (upload_id). Every change is checked and written in one transaction: a refused ' +
      'request changes nothing. A request that changes something increments `revision` by exactly 1 (a category ' +
      'change increments `market_item_revision` instead); one that changes nothing returns the suite as stored, ' +
      'revision and updated_at untouched.',
  })
  @ApiParam({ name: 'resourceId', format: 'uuid', description: 'Identifier of the expert suite.' })
  @ApiOkResponse({ type: ExpertSuiteDto, description: 'The current or updated expert suite.' })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      'VALIDATION_FAILED: a field breaks its schema (details names it), conflicting fields (icon_url with ' +
      'icon_upload_id, category_id with clear_category: true), or a count/version that disagrees with the package.',
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'NOT_FOUND: no such suite in the organization.' })
  @ApiConflictResponse({
    type: ErrorBodyDto,
    description:
      'REVISION_CONFLICT / MARKET_ITEM_REVISION_CONFLICT (details.suggestion = the current revision), or ' +
      'INVALID_STATUS_TRANSITION.',
  })
  @ApiUnprocessableEntityResponse({
    type: ErrorBodyDto,
    description: 'CATEGORY_NOT_FOUND, UPLOAD_NOT_FOUND, UPLOAD_NOT_USABLE (expired or of the wrong kind), PACKAGE_REQUIRED.',
  })
  update(
    @Param('resourceId', UuidParamPipe) resourceId: string,
    @Body() body: UpdateExpertSuiteDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
  ): Promise<ExpertSuiteDto> {
    return this.expertSuites.update(principal.organizationId, resourceId, body, publicBaseUrl(this.config, request));
  }
}
