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
import { CreateUserDto } from './dto/create-user.dto';
import { UserDto } from './dto/user.dto';
import { UserPageDto } from './dto/user-page.dto';
import { ListUsersQueryDto } from './dto/list-users-query.dto';
import { UpdateUserDto } from './dto/update-user.dto';
import { UsersError } from './users.errors';
import { DirectoryScope as UsersScope } from '../directory/directory.scopes';
import { UsersService } from './users.service';

const ETAG_HEADER = {
  ETag: { description: 'The strong entity tag of the user: its revision in quotes ("3").', required: true, schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' } },
};

const ID_PARAM = { name: 'user_id', format: 'uuid', description: 'Identifier of the user (any case).' };

const IF_MATCH_HEADER = {
  name: 'If-Match',
  required: false,
  description:
    'The ETag of the user as you read it, `"<revision>"`: the change applies only at that revision, else 412 ' +
    'PRECONDITION_FAILED (details.suggestion: the current revision). `*` means any revision. A weak tag, a list or anything else is 400 `invalid_format`.',
};

const IF_NONE_MATCH_ON_WRITE = {
  name: 'If-None-Match',
  required: false,
  description: 'Only `*` (RFC 9110): change the user only if it does not exist, which is never, so the answer is 412 PRECONDITION_FAILED (404 when there is none). Any other value is 400 `invalid_format`.',
};

@ApiTags('Users')
@Controller('api/openapi/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @RequireScope(UsersScope.Manage)
  @Idempotent()
  @ApiOperation({
    operationId: 'createUser',
    summary: 'Create user',
    description:
      'Adds a user to the organization, at revision 1, with its department memberships (in the order of department_ids; the primary one ' +
      'defaults to the first). Writes the audit event `user.created`.',
  })
  @ApiJsonBody(CreateUserDto, {
    minimal: { summary: 'A user with no department', value: { user_name: 'ann.lee', display_name: 'Ann Lee', email: 'ann.lee@example.com' } },
    withDepartments: {
      summary: 'A user in departments',
      description: 'department_ids must name departments of your organization: paste the department_id of ones you created.',
      value: {
        user_name: 'bo.chen',
        given_name: 'Bo',
        family_name: 'Chen',
        external_id: 'emp-1002',
        department_ids: ['3fa85f64-5717-4562-b3fc-2c963f66afa6'],
        primary_department_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      },
    },
  })
  @ApiCreatedResponse({ type: UserDto, description: 'The created user.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value breaks its schema or an unknown field was sent; details names the first failing field.'],
    [UsersError.USER_NAME_CONFLICT, 'Another user of the organization already has this user_name (compared by Unicode case folding).'],
    [UsersError.EXTERNAL_ID_CONFLICT, 'Another user of the organization already has this external_id.'],
    [UsersError.DEPARTMENT_NOT_FOUND, 'department_ids names a department that is not one of the organization\'s; details.field is department_ids.'],
  )
  create(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Body() body: CreateUserDto): Promise<UserDto> {
    return this.users.create(principal.organizationId, body, actor);
  }

  @Get(':user_id')
  @RequireScope(UsersScope.Read)
  @ApiOperation({
    operationId: 'getUser',
    summary: 'Get user',
    description:
      'Reads one user of the organization, with `ETag: "<revision>"`. With `If-None-Match` holding the current tag ' +
      'the answer is 304 with no body; send the tag as `If-Match` with a PATCH or DELETE to change exactly what was read.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiOkResponse({ type: UserDto, description: 'The user.', headers: ETAG_HEADER })
  @ApiNotModifiedResponse({ description: 'If-None-Match holds the current ETag: the copy the client holds is current (no body).', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'user_id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no user with this id.'],
  )
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('user_id', UuidParamPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UserDto> {
    return answerWithETag(await this.users.get(principal.organizationId, id), request, response);
  }

  @Get()
  @RequireScope(UsersScope.Read)
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users',
    description:
      'Lists the organization\'s users one page at a time, in the order they were created (with department_id: by user_id): pass ' +
      '`next_page_token` as `page_token` for the next page (null on the last one), with the same filters. Filters combine: department_id ' +
      '(direct members; recursive=true: members of its subtree, each once), user_name and email (compared by Unicode case folding), ' +
      'external_id (exact), active.',
  })
  @ApiOkResponse({ type: UserPageDto, description: 'One page of users.' })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'A query parameter is invalid (page_size outside 1–100, a page_token of another query, recursive without department_id, an unknown parameter); details names it.'])
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListUsersQueryDto): Promise<UserPageDto> {
    return this.users.list(principal.organizationId, query);
  }

  @Patch(':user_id')
  @RequireScope(UsersScope.Manage)
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Update user',
    description:
      'Changes any field of a user but user_id; department_ids replaces the whole set of memberships. A request that changes something ' +
      'increments `revision` by exactly 1, sets `updated_at` and writes the audit event `user.updated` with the old and new values of the ' +
      'fields that changed; one that changes nothing returns the user as stored, revision and updated_at untouched, and writes no event. ' +
      'Answers with the new ETag.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiJsonBody(UpdateUserDto, {
    deactivate: { summary: 'Deactivate', value: { active: false } },
    guarded: {
      summary: 'Only if unchanged since read (type the revision you read first)',
      description: 'expected_revision: type the `revision` of your last read (GET); a stale one is 409 REVISION_CONFLICT and changes nothing.',
      value: { expected_revision: 1, display_name: 'Ann Lee-Park', email: 'ann.park@example.com' },
    },
    departments: {
      summary: 'Replace the memberships',
      description: 'department_ids must name departments of your organization; an empty list removes every membership.',
      value: { department_ids: ['3fa85f64-5717-4562-b3fc-2c963f66afa6'], primary_department_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    },
  })
  @ApiOkResponse({ type: UserDto, description: 'The current or updated user.', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value, the path parameter or a precondition header breaks its schema (details names it), or If-Match and expected_revision name different revisions.'],
    [ErrorCode.NOT_FOUND, 'The organization has no user with this id.'],
    [REVISION_CONFLICT, 'expected_revision differs from the stored revision (details.suggestion is the current one); nothing changed.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
    [UsersError.USER_NAME_CONFLICT, 'Another user of the organization already has this user_name (compared by Unicode case folding).'],
    [UsersError.EXTERNAL_ID_CONFLICT, 'Another user of the organization already has this external_id.'],
    [UsersError.DEPARTMENT_NOT_FOUND, 'department_ids names a department that is not one of the organization\'s; details.field is department_ids.'],
    [UsersError.PRIMARY_DEPARTMENT_NOT_MEMBER, 'primary_department_id (sent without department_ids) is not one of the user\'s departments, or is null while it has some.'],
  )
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('user_id', UuidParamPipe) id: string,
    @Body() body: UpdateUserDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UserDto> {
    const requirement = revisionRequirement({ ifMatch, ifNoneMatch }, body.expected_revision);
    return answerWithETag(await this.users.update(principal.organizationId, id, body, requirement, actor), request, response);
  }

  @Delete(':user_id')
  @RequireScope(UsersScope.Manage)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'deleteUser',
    summary: 'Delete user',
    description:
      'Removes a user and its memberships; its user_name and external_id are free again at once. Writes the audit event `user.deleted` with its last values.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiNoContentResponse({ description: 'The user is gone.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'The path parameter or a precondition header breaks its schema; details names it.'],
    [ErrorCode.NOT_FOUND, 'The organization has no user with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
  )
  async delete(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('user_id', UuidParamPipe) id: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
  ): Promise<void> {
    await this.users.delete(principal.organizationId, id, revisionRequirement({ ifMatch, ifNoneMatch }), actor);
  }
}

/**
 * The user as answered, with its revision as ETag. On a GET whose If-None-Match holds
 * that tag, Express sends 304 without the body; `request.fresh` is set by hand because Express
 * alone answers 200 when the request also says `Cache-Control: no-cache`, which fetch() adds to
 * every request given If-None-Match (the directive is for caches: RFC 9110, 13.2.1).
 */
function answerWithETag(answer: UserDto, request: Request, response: Response): UserDto {
  const etag = revisionETag(answer.revision);
  response.setHeader('ETag', etag);
  if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
  return answer;
}
