import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiNoContentResponse, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { ifNoneMatchHolds, revisionETag } from '../../common/http/entity-tags';
import { REVISION_CONFLICT, revisionRequirement } from '../../common/http/write-preconditions';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { ApiJsonBody } from '../../common/openapi/api-json-body.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { Create__Singular__Dto } from './dto/create-__singular_kebab__.dto';
import { __Singular__Dto } from './dto/__singular_kebab__.dto';
import { __Singular__PageDto } from './dto/__singular_kebab__-page.dto';
import { List__Plural__QueryDto } from './dto/list-__kebab__-query.dto';
import { Update__Singular__Dto } from './dto/update-__singular_kebab__.dto';
import { __Plural__Error } from './__kebab__.errors';
import { __Plural__Scope } from './__kebab__.scopes';
import { __Plural__Service } from './__kebab__.service';

const ETAG_HEADER = {
  ETag: { description: 'The strong entity tag of the __singular_words__: its revision in quotes ("3").', required: true, schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' } },
};

const ID_PARAM = { name: '__singular_snake___id', format: 'uuid', description: 'Identifier of the __singular_words__ (any case).' };

const IF_MATCH_HEADER = {
  name: 'If-Match',
  required: false,
  description:
    'The ETag of the __singular_words__ as you read it, `"<revision>"`: the change applies only at that revision, else 412 ' +
    'PRECONDITION_FAILED (details.suggestion: the current revision). `*` means any revision. A weak tag, a list or anything else is 400 `invalid_format`.',
};

const IF_NONE_MATCH_ON_WRITE = {
  name: 'If-None-Match',
  required: false,
  description: 'Only `*` (RFC 9110): change the __singular_words__ only if it does not exist, which is never, so the answer is 412 PRECONDITION_FAILED (404 when there is none). Any other value is 400 `invalid_format`.',
};

@ApiTags('__Title__')
@Controller('api/openapi/v1/__kebab__')
export class __Plural__Controller {
  constructor(private readonly __pluralCamel__: __Plural__Service) {}

  @Post()
  @RequireScope(__Plural__Scope.Manage)
  @Idempotent()
  @ApiOperation({ operationId: 'create__Singular__', summary: 'Create __singular_words__', description: 'Adds a __singular_words__ to the organization, at revision 1.' })
  @ApiCreatedResponse({ type: __Singular__Dto, description: 'The created __singular_words__.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value breaks its schema or an unknown field was sent; details names the first failing field.'],
    [__Plural__Error.__SINGULAR_UPPER___NAME_CONFLICT, 'Another __singular_words__ of the organization already has this name.'],
  )
  create(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Body() body: Create__Singular__Dto): Promise<__Singular__Dto> {
    return this.__pluralCamel__.create(principal.organizationId, body, actor);
  }

  @Get(':__singular_snake___id')
  @RequireScope(__Plural__Scope.Read)
  @ApiOperation({
    operationId: 'get__Singular__',
    summary: 'Get __singular_words__',
    description:
      'Reads one __singular_words__ of the organization, with `ETag: "<revision>"`. With `If-None-Match` holding the current tag ' +
      'the answer is 304 with no body; send the tag as `If-Match` with a PATCH or DELETE to change exactly what was read.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiOkResponse({ type: __Singular__Dto, description: 'The __singular_words__.', headers: ETAG_HEADER })
  @ApiNotModifiedResponse({ description: 'If-None-Match holds the current ETag: the copy the client holds is current (no body).', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, '__singular_snake___id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no __singular_words__ with this id.'],
  )
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('__singular_snake___id', UuidParamPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<__Singular__Dto> {
    return answerWithETag(await this.__pluralCamel__.get(principal.organizationId, id), request, response);
  }

  @Get()
  @RequireScope(__Plural__Scope.Read)
  @ApiOperation({
    operationId: 'list__Plural__',
    summary: 'List __words__',
    description:
      'Lists the organization\'s __words__ in the order they were created, one page at a time: pass `next_page_token` as ' +
      '`page_token` for the next page (null on the last one). A token works on every instance and only for the organization that produced it.',
  })
  @ApiOkResponse({ type: __Singular__PageDto, description: 'One page of __words__.' })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'A query parameter is invalid (page_size outside 1–100, a page_token of another query, an unknown parameter); details names it.'])
  list(@CurrentPrincipal() principal: Principal, @Query() query: List__Plural__QueryDto): Promise<__Singular__PageDto> {
    return this.__pluralCamel__.list(principal.organizationId, query);
  }

  @Patch(':__singular_snake___id')
  @RequireScope(__Plural__Scope.Manage)
  @ApiOperation({
    operationId: 'update__Singular__',
    summary: 'Update __singular_words__',
    description:
      'Renames a __singular_words__. A request that changes something increments `revision` by exactly 1, sets `updated_at` and writes the ' +
      'audit event `__singular_snake__.updated` with the old and new values; one that changes nothing (no name, or the stored one) returns the ' +
      '__singular_words__ as stored, revision and updated_at untouched, and writes no event. Answers with the new ETag.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiJsonBody(Update__Singular__Dto, {
    rename: { summary: 'Rename', value: { name: 'Renamed __singular_words__' } },
    guarded: {
      summary: 'Only if unchanged since read',
      description: 'expected_revision is the revision of your last read; a stale one is 409 REVISION_CONFLICT.',
      value: { expected_revision: 1, name: 'Renamed __singular_words__' },
    },
  })
  @ApiOkResponse({ type: __Singular__Dto, description: 'The current or updated __singular_words__.', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value, the path parameter or a precondition header breaks its schema (details names it), or If-Match and expected_revision name different revisions.'],
    [ErrorCode.NOT_FOUND, 'The organization has no __singular_words__ with this id.'],
    [REVISION_CONFLICT, 'expected_revision differs from the stored revision (details.suggestion is the current one); nothing changed.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
    [__Plural__Error.__SINGULAR_UPPER___NAME_CONFLICT, 'Another __singular_words__ of the organization already has this name.'],
  )
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('__singular_snake___id', UuidParamPipe) id: string,
    @Body() body: Update__Singular__Dto,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<__Singular__Dto> {
    const requirement = revisionRequirement({ ifMatch, ifNoneMatch }, body.expected_revision);
    return answerWithETag(await this.__pluralCamel__.update(principal.organizationId, id, body, requirement, actor), request, response);
  }

  @Delete(':__singular_snake___id')
  @RequireScope(__Plural__Scope.Manage)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'delete__Singular__',
    summary: 'Delete __singular_words__',
    description: 'Removes a __singular_words__; its name is free again at once. Writes the audit event `__singular_snake__.deleted` with its last values.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiNoContentResponse({ description: 'The __singular_words__ is gone.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'The path parameter or a precondition header breaks its schema; details names it.'],
    [ErrorCode.NOT_FOUND, 'The organization has no __singular_words__ with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
  )
  async delete(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('__singular_snake___id', UuidParamPipe) id: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
  ): Promise<void> {
    await this.__pluralCamel__.delete(principal.organizationId, id, revisionRequirement({ ifMatch, ifNoneMatch }), actor);
  }
}

/**
 * The __singular_words__ as answered, with its revision as ETag. On a GET whose If-None-Match holds
 * that tag, Express sends 304 without the body; `request.fresh` is set by hand because Express
 * alone answers 200 when the request also says `Cache-Control: no-cache`, which fetch() adds to
 * every request given If-None-Match (the directive is for caches: RFC 9110, 13.2.1).
 */
function answerWithETag(answer: __Singular__Dto, request: Request, response: Response): __Singular__Dto {
  const etag = revisionETag(answer.revision);
  response.setHeader('ETag', etag);
  if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
  return answer;
}
