import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { Create__Singular__Dto } from './dto/create-__singular_kebab__.dto';
import { __Singular__Dto } from './dto/__singular_kebab__.dto';
import { __Singular__PageDto } from './dto/__singular_kebab__-page.dto';
import { List__Plural__QueryDto } from './dto/list-__kebab__-query.dto';
import { __Plural__Error } from './__kebab__.errors';
import { __Plural__Scope } from './__kebab__.scopes';
import { __Plural__Service } from './__kebab__.service';

@ApiTags('__Title__')
@Controller('api/openapi/v1/__kebab__')
export class __Plural__Controller {
  constructor(private readonly __pluralCamel__: __Plural__Service) {}

  @Post()
  @RequireScope(__Plural__Scope.Manage)
  @Idempotent({ sqlOnly: true })
  @ApiOperation({ operationId: 'create__Singular__', summary: 'Create __singular_words__', description: 'Adds a __singular_words__ to the organization.' })
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
  @ApiOperation({ operationId: 'get__Singular__', summary: 'Get __singular_words__', description: 'Reads one __singular_words__ of the organization, with the fields create returns.' })
  @ApiParam({ name: '__singular_snake___id', format: 'uuid', description: 'Identifier of the __singular_words__ (any case).' })
  @ApiOkResponse({ type: __Singular__Dto, description: 'The __singular_words__.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, '__singular_snake___id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no __singular_words__ with this id.'],
  )
  get(@CurrentPrincipal() principal: Principal, @Param('__singular_snake___id', UuidParamPipe) id: string): Promise<__Singular__Dto> {
    return this.__pluralCamel__.get(principal.organizationId, id);
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
}
