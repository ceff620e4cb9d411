import { Body, Controller, Get, Headers, Param, Patch, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { ApiJsonBody } from '../../common/openapi/api-json-body.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { ifNoneMatchHolds, revisionETag } from '../../common/http/entity-tags';
import { revisionRequirement } from '../../common/http/write-preconditions';
import { AppConfig } from '../../config/app-config';
import { ExpertSuiteDto } from './dto/expert-suite.dto';
import { ExpertSuitePageDto } from './dto/expert-suite-page.dto';
import { ListExpertSuitesQueryDto } from './dto/list-expert-suites-query.dto';
import { UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import { toExpertSuiteDto, type ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { ExpertSuitesService } from './expert-suites.service';
import { publicBaseUrl } from '../../common/http/public-base-url';
import { ExpertSuitesScope } from './expert-suites.scopes';
import { ExpertSuitesError } from './expert-suites.errors';
import { UploadsError } from '../uploads/uploads.errors';

const ETAG_HEADER = {
  ETag: { description: 'The strong entity tag of the suite: its revision in quotes ("3").', required: true, schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' } },
};

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
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description:
      'Another way to state the expected revision (RFC 9110): the suite\'s ETag, `"<revision>"`, or `*` for any. A stale ' +
      'tag is 412 PRECONDITION_FAILED (details.suggestion: the current revision). A weak tag, a list or anything else ' +
      'is 400 `invalid_format`; a tag that names another revision than `expected_revision` is 400 `conflicting_fields`.',
  })
  @ApiJsonBody(UpdateExpertSuiteDto, {
    describe: {
      summary: 'Rename and describe',
      value: { display_name: 'Tax helper', description: 'Answers questions on VAT and payroll tax.', clients: ['web', 'desktop'] },
    },
    guarded: {
      summary: 'Only if unchanged since read (type the revision you read first)',
      description: 'expected_revision: type the `revision` of your last read (GET); a stale one is 409 REVISION_CONFLICT and changes nothing.',
      value: { expected_revision: 1, display_name: 'Tax helper' },
    },
    categorize: {
      summary: 'Put into a category',
      description: 'category_id must name a category of your organization (the first start prints the demo one).',
      value: { category_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    },
    applyPackage: {
      summary: 'Apply an uploaded package and publish (upload a package first)',
      description: 'upload_id: type the upload_id that POST /api/openapi/v1/uploads answered for a package (kind package).',
      value: { upload_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', status: 'published' },
    },
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description:
      'Only `*` (RFC 9110): change the suite only if it does not exist, which for a PATCH is never, so the answer is 412 ' +
      'PRECONDITION_FAILED (404 when there is no such suite) and nothing changes. Any other value is 400 `invalid_format`.',
  })
  @ApiOkResponse({ type: ExpertSuiteDto, description: 'The current or updated expert suite.', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A field or the path parameter breaks its schema (details names it), fields conflict, or a count or version disagrees with the package.'],
    [ErrorCode.NOT_FOUND, 'The organization has no such expert suite.'],
    [ExpertSuitesError.REVISION_CONFLICT, 'expected_revision differs from the stored revision (details.suggestion is the current one); nothing changed.'],
    [ExpertSuitesError.MARKET_ITEM_REVISION_CONFLICT, 'expected_market_item_revision differs from the stored one; nothing changed.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is * and the suite exists; nothing changed.'],
    [ExpertSuitesError.INVALID_STATUS_TRANSITION, 'The requested status cannot follow the current one.'],
    [ExpertSuitesError.CATEGORY_NOT_FOUND, 'The organization has no such category.'],
    [UploadsError.UPLOAD_NOT_FOUND, 'The organization has no such upload.'],
    [UploadsError.UPLOAD_NOT_USABLE, 'The upload has expired or is of the wrong kind.'],
    [ExpertSuitesError.PACKAGE_REQUIRED, 'Publishing needs a resource package.'],
  )
  async update(
    @Param('resourceId', UuidParamPipe) resourceId: string,
    @Body() body: UpdateExpertSuiteDto,
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ExpertSuiteDto> {
    const requirement = revisionRequirement({ ifMatch, ifNoneMatch }, body.expected_revision);
    return this.answerWithETag(await this.expertSuites.update(principal.organizationId, resourceId, body, requirement, actor), request, response);
  }

  @Get(':resourceId')
  @RequireScope(ExpertSuitesScope.Read)
  @ApiOperation({
    operationId: 'getExpertSuite',
    summary: 'Get expert suite',
    description:
      'Reads one expert suite: the same body PATCH returns, with `ETag: "<revision>"`. With `If-None-Match` holding ' +
      'the current tag the answer is 304 with no body; send the tag as `If-Match` (or the revision as ' +
      '`expected_revision`) with a PATCH to change exactly what was read.',
  })
  @ApiParam({ name: 'resourceId', format: 'uuid', description: 'Identifier of the expert suite.' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiOkResponse({ type: ExpertSuiteDto, description: 'The expert suite.', headers: ETAG_HEADER })
  @ApiNotModifiedResponse({ description: 'If-None-Match holds the current ETag: the copy the client holds is current (no body).', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'resourceId is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no such expert suite.'],
  )
  async get(
    @Param('resourceId', UuidParamPipe) resourceId: string,
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ExpertSuiteDto> {
    return this.answerWithETag(await this.expertSuites.get(principal.organizationId, resourceId), request, response);
  }

  @Get()
  @RequireScope(ExpertSuitesScope.Read)
  @ApiOperation({
    operationId: 'listExpertSuites',
    summary: 'List expert suites',
    description:
      "Lists the organization's expert suites, optionally of one `status` or `category_id`, ordered by `created_at` " +
      'then `id`, one page at a time: pass `next_page_token` as `page_token` for the next page (null on the last). A ' +
      'token works on every instance and only for the filters and organization that produced it.',
  })
  @ApiOkResponse({ type: ExpertSuitePageDto, description: 'One page of expert suites.' })
  @ApiErrorResponses([
    ErrorCode.VALIDATION_FAILED,
    'A query parameter is invalid (an unknown status, page_size outside 1–100, a page_token of another query, an unknown parameter); details names it.',
  ])
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListExpertSuitesQueryDto, @Req() request: Request): Promise<ExpertSuitePageDto> {
    const page = await this.expertSuites.list(principal.organizationId, query);
    const baseUrl = publicBaseUrl(this.config, request);
    return { items: page.items.map((suite) => toExpertSuiteDto(suite, baseUrl)), next_page_token: page.next_page_token };
  }

  /**
   * The suite as answered, with its revision as ETag. On a GET whose If-None-Match holds that tag,
   * Express sends 304 without the body. Express alone would not when the request also says
   * `Cache-Control: no-cache`, which fetch() adds to every request given If-None-Match; that
   * directive is for caches, and the origin server evaluates the condition regardless (RFC 9110, 13.2.1).
   */
  private answerWithETag(suite: ExpertSuiteWithMarketItem, request: Request, response: Response): ExpertSuiteDto {
    const answer = toExpertSuiteDto(suite, publicBaseUrl(this.config, request));
    const etag = revisionETag(answer.revision);
    response.setHeader('ETag', etag);
    if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
    return answer;
  }
}
