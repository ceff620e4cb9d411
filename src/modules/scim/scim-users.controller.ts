import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { ifNoneMatchHolds } from '../../common/http/entity-tags';
import { AcceptsJsonMediaTypes } from '../../common/http/json-body.guard';
import { publicBaseUrl } from '../../common/http/public-base-url';
import { AppConfig } from '../../config/app-config';
import type { UserRow } from '../users/users.repository';
import { UsersError } from '../users/users.errors';
import { ScimErrorDto } from './dto/scim-error.dto';
import { SCIM_USER_SCHEMA, scimListResponseSchema } from './dto/scim-user.schema';
import { scimListResponse } from './protocol/list-paging';
import { badScimRequest } from './protocol/scim-error';
import { ApiScimAttributeSelection, ApiScimListQueries } from './scim-openapi';
import { SCIM_MEDIA_TYPE, ScimJsonAnswers } from './scim-http';
import { ScimScope } from './scim.scopes';
import type { ScimObject } from './scim-user-attributes';
import { scimUserLocation, toScimUser } from './scim-user.mapper';
import { scimVersion } from './scim-version';
import { selectAttributes, type AttributeSelection } from './protocol/attribute-selection';
import { SCIM_SCHEMA, USER_RESOURCE_TYPE } from './protocol/schemas';
import { SCIM_PATCH_OP_SCHEMA } from './protocol/patch-ops';
import { ScimUsersService } from './scim-users.service';

const ID_PARAM = { name: 'id', description: 'The user\'s id (its user_id in the REST API).' };
const USER_CONTENT = { [SCIM_MEDIA_TYPE]: { schema: SCIM_USER_SCHEMA } };
const ETAG = { ETag: { description: 'meta.version: W/"<revision>".', required: true, schema: { type: 'string', pattern: '^W/"[1-9][0-9]*"$' } } };
const IF_MATCH = {
  name: 'If-Match',
  required: false,
  description: 'meta.version as read (`W/"3"`; a strong `"3"` too): the change applies only at that revision, else 412. `*`: any.',
};
const NEW_USER_EXAMPLE = {
  schemas: [SCIM_SCHEMA.user, SCIM_SCHEMA.enterpriseUser],
  userName: 'ann.lee@example.com',
  externalId: 'ann-lee',
  name: { givenName: 'Ann', familyName: 'Lee' },
  emails: [{ value: 'ann.lee@example.com', type: 'work', primary: true }],
  active: true,
  [SCIM_SCHEMA.enterpriseUser]: { department: 'Research' },
};
/** RFC 7644 §3.9, on every operation that answers users. */
const ApiAttributeSelection = () =>
  ApiScimAttributeSelection({
    attributes: 'Comma-separated attributes to answer (with id and schemas), e.g. `userName,emails`.',
    excludedAttributes: 'Comma-separated attributes to leave out, e.g. `groups`.',
  });
const BAD_REQUEST = (what: string) =>
  [ErrorCode.VALIDATION_FAILED, `${what}; scimType says which (invalidValue, invalidSyntax, invalidPath, noTarget, mutability).`] as [ErrorCode, string];

/**
 * SCIM 2.0 Users (RFC 7644 §3, CONTRACT.md section 12) at /scim/v2/Users: the directory's users, in
 * SCIM's form. Every answer is application/scim+json, every failure SCIM's error body.
 */
@ApiTags('SCIM')
@ApiExtraModels(ScimErrorDto)
@Controller('scim/v2/Users')
@AcceptsJsonMediaTypes(SCIM_MEDIA_TYPE, 'application/json')
@ScimJsonAnswers()
export class ScimUsersController {
  constructor(
    private readonly users: ScimUsersService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @RequireScope(ScimScope.Provision)
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    operationId: 'scimCreateUser',
    summary: 'SCIM: create user',
    description:
      'Creates a directory user from a SCIM User (RFC 7643 §4.1 with the enterprise extension). A taken userName (compared by Unicode case folding) ' +
      'or externalId is 409 uniqueness: a provider retrying after a timeout then finds the user with `filter=userName eq "…"`. Audited as `user.created`.',
  })
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({ schema: { type: 'object', additionalProperties: true }, examples: { user: { summary: 'A user', value: NEW_USER_EXAMPLE } } })
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.CREATED, description: 'The user as created.', content: USER_CONTENT, headers: { ...ETAG, Location: { description: 'meta.location', required: true, schema: { type: 'string' } } } })
  @ApiErrorResponses(BAD_REQUEST('The body is no User, userName is missing, or a value has the wrong type or length'), [
    UsersError.USER_NAME_CONFLICT,
    'userName or externalId belongs to another user (scimType uniqueness).',
  ])
  async create(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Body() body: object,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = attributeSelection(attributes, excludedAttributes);
    const row = await this.users.create(principal.organizationId, body, actor);
    response.setHeader('Location', scimUserLocation(publicBaseUrl(this.config, request), row.id));
    return this.answer(row, selection, request, response);
  }

  @Get()
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimListUsers',
    summary: 'SCIM: list users',
    description:
      'The users a filter keeps (RFC 7644 §3.4.2.2: eq ne co sw ew pr gt ge lt le, and or not, value paths; on id, userName, externalId, displayName, ' +
      'active, name.givenName, name.familyName, emails (value, type, primary), meta.created, meta.lastModified), in creation order, a page from ' +
      'startIndex (1-based) of count (at most 100; 0: totalResults alone). Nothing matching is 200 with an empty list. `userName eq`, `externalId eq` ' +
      'and `id eq` are index lookups.',
  })
  @ApiScimListQueries('userName eq "ann.lee@example.com"')
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.OK, description: 'One page of users.', content: { [SCIM_MEDIA_TYPE]: { schema: scimListResponseSchema(SCIM_USER_SCHEMA) } } })
  @ApiErrorResponses(BAD_REQUEST('The filter does not parse or names an attribute that cannot be filtered on (invalidFilter), or startIndex or count is no integer'))
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query('filter') filter: unknown,
    @Query('startIndex') startIndex: unknown,
    @Query('count') count: unknown,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
  ) {
    if (filter !== undefined && typeof filter !== 'string') throw badScimRequest('invalidFilter', 'Send one filter parameter.');
    const selection = attributeSelection(attributes, excludedAttributes);
    const { page, total, rows } = await this.users.list(principal.organizationId, { filter, startIndex, count });
    const baseUrl = publicBaseUrl(this.config, request);
    return scimListResponse(
      rows.map((row) => selectAttributes(toScimUser(row, baseUrl), selection, USER_RESOURCE_TYPE)),
      total,
      page,
    );
  }

  @Get(':id')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimGetUser', summary: 'SCIM: get user', description: 'One user as a SCIM User, with its ETag (meta.version); 304 to an If-None-Match holding it.' })
  @ApiParam(ID_PARAM)
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.OK, description: 'The user.', content: USER_CONTENT, headers: ETAG })
  @ApiResponse({ status: HttpStatus.NOT_MODIFIED, description: 'If-None-Match holds the current ETag.', headers: ETAG })
  @ApiErrorResponses([ErrorCode.NOT_FOUND, 'The organization has no user with this id.'])
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = attributeSelection(attributes, excludedAttributes);
    return this.answer(await this.users.get(principal.organizationId, id), selection, request, response);
  }

  @Put(':id')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimReplaceUser',
    summary: 'SCIM: replace user',
    description:
      'Replaces the user\'s attributes with the body\'s (RFC 7644 §3.5.1); `active` left out keeps its value, the departments (groups) stay. ' +
      'A body equal to the stored user changes nothing. Audited as `user.updated` with the fields that changed.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({ schema: { type: 'object', additionalProperties: true }, examples: { user: { summary: 'A user', value: NEW_USER_EXAMPLE } } })
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.OK, description: 'The user as stored now.', content: USER_CONTENT, headers: ETAG })
  @ApiErrorResponses(
    BAD_REQUEST('The body is no User, userName is missing, or a value has the wrong type or length'),
    [ErrorCode.NOT_FOUND, 'The organization has no user with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'],
    [UsersError.USER_NAME_CONFLICT, 'userName or externalId belongs to another user (scimType uniqueness).'],
  )
  async replace(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: object,
    @Headers('if-match') ifMatch: string | undefined,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = attributeSelection(attributes, excludedAttributes);
    return this.answer(await this.users.replace(principal.organizationId, id, body, ifMatch, actor), selection, request, response);
  }

  @Patch(':id')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimPatchUser',
    summary: 'SCIM: update user',
    description:
      'Applies a PatchOp (RFC 7644 §3.5.2): add, replace, remove in any letter case, with or without path, value filters (`emails[type eq "work"].value`), ' +
      '"True"/"False" for booleans. Answers 200 with the user. Audited as `user.updated` with the fields that changed.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({
    schema: { type: 'object', additionalProperties: true },
    examples: {
      deactivate: { summary: 'Deactivate', value: { schemas: [SCIM_PATCH_OP_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] } },
      email: { summary: 'Replace the work email', value: { schemas: [SCIM_PATCH_OP_SCHEMA], Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: 'ann@example.com' }] } },
    },
  })
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.OK, description: 'The user as stored now.', content: USER_CONTENT, headers: ETAG })
  @ApiErrorResponses(
    BAD_REQUEST('The body is no PatchOp, a path does not parse, an operation has no target, or a value has the wrong type'),
    [ErrorCode.NOT_FOUND, 'The organization has no user with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'],
    [UsersError.USER_NAME_CONFLICT, 'userName or externalId belongs to another user (scimType uniqueness).'],
  )
  async patch(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('id') id: string,
    @Body() body: object,
    @Headers('if-match') ifMatch: string | undefined,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = attributeSelection(attributes, excludedAttributes);
    return this.answer(await this.users.patch(principal.organizationId, id, body, ifMatch, actor), selection, request, response);
  }

  @Delete(':id')
  @RequireScope(ScimScope.Provision)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ operationId: 'scimDeleteUser', summary: 'SCIM: delete user', description: 'Deletes the user and its memberships; afterwards it is 404 to every method. Audited as `user.deleted`.' })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: HttpStatus.NO_CONTENT, description: 'The user is gone.' })
  @ApiErrorResponses([ErrorCode.NOT_FOUND, 'The organization has no user with this id.'], [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'])
  async delete(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Param('id') id: string, @Headers('if-match') ifMatch: string | undefined): Promise<void> {
    await this.users.delete(principal.organizationId, id, ifMatch, actor);
  }

  /**
   * The user as a SCIM resource, its attributes selected (RFC 7644 §3.9), with its ETag. On a GET
   * whose If-None-Match holds the tag, Express answers 304 without the body (`fresh` set by hand,
   * as the REST API's users do: fetch() adds Cache-Control: no-cache, with which Express alone
   * would answer 200).
   */
  private answer(row: UserRow, selection: AttributeSelection, request: Request, response: Response): ScimObject {
    const etag = scimVersion(row.revision);
    response.setHeader('ETag', etag);
    if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
    return selectAttributes(toScimUser(row, publicBaseUrl(this.config, request)), selection, USER_RESOURCE_TYPE);
  }
}

/** The `attributes` and `excludedAttributes` parameters (RFC 7644 §3.9), each a comma-separated list sent at most once. */
function attributeSelection(attributes: unknown, excludedAttributes: unknown): AttributeSelection {
  for (const [name, value] of [['attributes', attributes], ['excludedAttributes', excludedAttributes]] as const) {
    if (value !== undefined && typeof value !== 'string') throw badScimRequest('invalidValue', `${name}: send one comma-separated list.`);
  }
  return { attributes: attributes as string | undefined, excludedAttributes: excludedAttributes as string | undefined };
}
