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
import { DirectoryError } from '../directory/directory.errors';
import { ScimErrorDto } from './dto/scim-error.dto';
import { SCIM_GROUP_LIST_SCHEMA, SCIM_GROUP_SCHEMA } from './dto/scim-group.schema';
import { scimListResponse } from './protocol/list-paging';
import { SCIM_PATCH_OP_SCHEMA } from './protocol/patch-ops';
import { badScimRequest } from './protocol/scim-error';
import { SCIM_SCHEMA } from './protocol/schemas';
import { ApiScimAttributeSelection, ApiScimListQueries } from './scim-openapi';
import type { AttributeSelection } from './protocol/attribute-selection';
import { readGroupSelection, selectGroupAttributes, selectsMembers } from './scim-group-selection';
import type { ScimObject } from './scim-group-values';
import { toScimGroup } from './scim-group.mapper';
import { ScimGroupsService, type ScimGroupRead } from './scim-groups.service';
import { SCIM_MEDIA_TYPE, ScimJsonAnswers } from './scim-http';
import { ScimScope } from './scim.scopes';

const ID_PARAM = { name: 'groupId', description: "The group's id (its department_id in the REST API)." };
const GROUP_CONTENT = { [SCIM_MEDIA_TYPE]: { schema: SCIM_GROUP_SCHEMA } };
const ETAG = { ETag: { description: 'meta.version: W/"<revision>" of the department.', required: true, schema: { type: 'string', pattern: '^W/"[1-9][0-9]*"$' } } };
const IF_MATCH = {
  name: 'If-Match',
  required: false,
  description: 'meta.version as read (`W/"3"`; a strong `"3"` too): the change applies only at that revision, else 412. `*`: any.',
};
const NEW_GROUP_EXAMPLE = { schemas: [SCIM_SCHEMA.group], displayName: 'Field Sales', externalId: 'field-sales' };
/** Placeholders of the examples: the embedded demo's document names its own user and department instead. */
export const EXAMPLE_USER_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
export const EXAMPLE_GROUP_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const GROUP_EXAMPLES = {
  group: { summary: 'A group', value: NEW_GROUP_EXAMPLE },
  members: { summary: 'With members (user ids)', value: { ...NEW_GROUP_EXAMPLE, members: [{ value: EXAMPLE_USER_ID }] } },
  nested: { summary: 'Under another group', value: { schemas: [SCIM_SCHEMA.group, SCIM_SCHEMA.workspaceGroup], displayName: 'Lab', [SCIM_SCHEMA.workspaceGroup]: { parentId: EXAMPLE_GROUP_ID } } },
};
const BAD_REQUEST = (what: string) =>
  [ErrorCode.VALIDATION_FAILED, `${what}; scimType says which (invalidValue, invalidSyntax, invalidPath, invalidFilter, noTarget, mutability, tooMany).`] as [ErrorCode, string];
const UNIQUENESS = [DirectoryError.DEPARTMENT_NAME_CONFLICT, 'displayName is taken under the same parent, or externalId in the organization (scimType uniqueness).'] as [ErrorCode, string];

const ApiAttributeSelection = () =>
  ApiScimAttributeSelection({
    attributes: 'Comma-separated attributes to return (RFC 7644 §3.9); schemas and id always.',
    excludedAttributes: 'Comma-separated attributes to leave out: `members` (what Entra ID sends) reads no member at all.',
  });

/**
 * SCIM 2.0 Groups (RFC 7644 §3, CONTRACT.md section 12) at /scim/v2/Groups: the directory's
 * departments, their direct members as members. Every answer is application/scim+json, every
 * failure SCIM's error body.
 */
@ApiTags('SCIM')
@ApiExtraModels(ScimErrorDto)
@Controller('scim/v2/Groups')
@AcceptsJsonMediaTypes(SCIM_MEDIA_TYPE, 'application/json')
@ScimJsonAnswers()
export class ScimGroupsController {
  constructor(
    private readonly groups: ScimGroupsService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @RequireScope(ScimScope.Provision)
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    operationId: 'scimCreateGroup',
    summary: 'SCIM: create group',
    description:
      'Creates a department from a SCIM Group: a top-level one unless the workspace extension names parentId, with its members (user ids). ' +
      'A displayName taken under the same parent (Unicode case folding) or a taken externalId is 409 uniqueness. Audited as `department.created` ' +
      'and a `department.member_added` per member.',
  })
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiAttributeSelection()
  @ApiBody({ schema: { type: 'object', additionalProperties: true }, examples: GROUP_EXAMPLES })
  @ApiResponse({ status: HttpStatus.CREATED, description: 'The group as created.', content: GROUP_CONTENT, headers: { ...ETAG, Location: { description: 'meta.location', required: true, schema: { type: 'string' } } } })
  @ApiErrorResponses(BAD_REQUEST('The body is no Group, displayName is missing, a member is no user of the organization, or parentId names no group'), UNIQUENESS)
  async create(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Body() body: object,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = readGroupSelection({ attributes, excludedAttributes });
    return this.answer(await this.groups.create(principal.organizationId, body, actor, selectsMembers(selection)), selection, request, response);
  }

  @Get()
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimListGroups',
    summary: 'SCIM: list groups',
    description:
      'The groups a filter keeps (RFC 7644 §3.4.2.2 on id, displayName, externalId, members.value, meta.created, meta.lastModified and the extension\'s parentId), ' +
      'in id order, a page from startIndex (1-based) of count (at most 100; 0: totalResults alone), with members unless excluded. The filter runs in the database; ' +
      '`members.value eq` is a probe of the membership key.',
  })
  @ApiScimListQueries('displayName eq "Research"')
  @ApiAttributeSelection()
  @ApiResponse({ status: HttpStatus.OK, description: 'One page of groups.', content: { [SCIM_MEDIA_TYPE]: { schema: SCIM_GROUP_LIST_SCHEMA } } })
  @ApiErrorResponses(BAD_REQUEST('The filter does not parse or names an attribute that cannot be filtered on (invalidFilter), startIndex or count is no integer, or the page would list too many members (tooMany)'))
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
    const selection = readGroupSelection({ attributes, excludedAttributes });
    const { page, total, groups } = await this.groups.list(principal.organizationId, { filter, startIndex, count }, selectsMembers(selection));
    const baseUrl = publicBaseUrl(this.config, request);
    return scimListResponse(
      groups.map((group) => this.resource(group, selection, baseUrl)),
      total,
      page,
    );
  }

  @Get(':groupId')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimGetGroup', summary: 'SCIM: get group', description: 'One group with its ETag (meta.version); 304 to an If-None-Match holding it.' })
  @ApiParam(ID_PARAM)
  @ApiAttributeSelection()
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'The group.', content: GROUP_CONTENT, headers: ETAG })
  @ApiResponse({ status: HttpStatus.NOT_MODIFIED, description: 'If-None-Match holds the current ETag.', headers: ETAG })
  @ApiErrorResponses(BAD_REQUEST('The group has more members than one answer lists (tooMany)'), [ErrorCode.NOT_FOUND, 'The organization has no group with this id.'])
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('groupId') id: string,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = readGroupSelection({ attributes, excludedAttributes });
    return this.answer(await this.groups.get(principal.organizationId, id, selectsMembers(selection)), selection, request, response);
  }

  @Put(':groupId')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimReplaceGroup',
    summary: 'SCIM: replace group',
    description:
      'Replaces displayName, externalId (absent: none) and the members (absent: none) with the body\'s; parentId moves the department only when the body names it. ' +
      'Audited as `department.updated` with the fields that changed and a `department.member_added`/`department.member_removed` per member changed.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiAttributeSelection()
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({ schema: { type: 'object', additionalProperties: true }, examples: GROUP_EXAMPLES })
  @ApiResponse({ status: HttpStatus.OK, description: 'The group as stored now.', content: GROUP_CONTENT, headers: ETAG })
  @ApiErrorResponses(
    BAD_REQUEST('The body is no Group, displayName is missing, a member is no user of the organization, or parentId names no group or one below it'),
    [ErrorCode.NOT_FOUND, 'The organization has no group with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'],
    UNIQUENESS,
  )
  async replace(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('groupId') id: string,
    @Body() body: object,
    @Headers('if-match') ifMatch: string | undefined,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = readGroupSelection({ attributes, excludedAttributes });
    return this.answer(await this.groups.replace(principal.organizationId, id, body, ifMatch, actor, selectsMembers(selection)), selection, request, response);
  }

  @Patch(':groupId')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({
    operationId: 'scimPatchGroup',
    summary: 'SCIM: update group',
    description:
      'Applies a PatchOp (RFC 7644 §3.5.2), op names in any case: `add` members, `remove` members (by value list, by `members[value eq "…"]`, or all), ' +
      '`replace` displayName, externalId, members (the whole set) or parentId (a move), path-less `add`/`replace` with an object. Adding a member that ' +
      'already is one, or removing one that is not, is no error. Answers 200 with the group.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiAttributeSelection()
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({
    schema: { type: 'object', additionalProperties: true },
    examples: {
      rename: { summary: 'Rename', value: { schemas: [SCIM_PATCH_OP_SCHEMA], Operations: [{ op: 'Replace', path: 'displayName', value: 'Field Sales EMEA' }] } },
      add: { summary: 'Add members (Entra ID)', value: { schemas: [SCIM_PATCH_OP_SCHEMA], Operations: [{ op: 'Add', path: 'members', value: [{ value: EXAMPLE_USER_ID }] }] } },
      remove: { summary: 'Remove a member (Okta)', value: { schemas: [SCIM_PATCH_OP_SCHEMA], Operations: [{ op: 'remove', path: `members[value eq "${EXAMPLE_USER_ID}"]` }] } },
    },
  })
  @ApiResponse({ status: HttpStatus.OK, description: 'The group as stored now.', content: GROUP_CONTENT, headers: ETAG })
  @ApiErrorResponses(
    BAD_REQUEST('The body is no PatchOp, a path does not parse or names no attribute of a Group, or a value has the wrong type or names no user'),
    [ErrorCode.NOT_FOUND, 'The organization has no group with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'],
    UNIQUENESS,
  )
  async patch(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('groupId') id: string,
    @Body() body: object,
    @Headers('if-match') ifMatch: string | undefined,
    @Query('attributes') attributes: unknown,
    @Query('excludedAttributes') excludedAttributes: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const selection = readGroupSelection({ attributes, excludedAttributes });
    return this.answer(await this.groups.patch(principal.organizationId, id, body, ifMatch, actor, selectsMembers(selection)), selection, request, response);
  }

  @Delete(':groupId')
  @RequireScope(ScimScope.Provision)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'scimDeleteGroup',
    summary: 'SCIM: delete group',
    description:
      'Removes the group\'s memberships and deletes its department in one transaction; 409 while it has child groups. Afterwards it is 404 to every method. ' +
      'Audited as a `department.member_removed` per member and `department.deleted`.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: HttpStatus.NO_CONTENT, description: 'The group is gone.' })
  @ApiErrorResponses(
    [ErrorCode.NOT_FOUND, 'The organization has no group with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another version.'],
    [DirectoryError.DEPARTMENT_NOT_EMPTY, 'The group has child groups (departments under it).'],
  )
  async delete(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Param('groupId') id: string, @Headers('if-match') ifMatch: string | undefined): Promise<void> {
    await this.groups.delete(principal.organizationId, id, ifMatch, actor);
  }

  private resource(group: ScimGroupRead, selection: AttributeSelection, baseUrl: string): ScimObject {
    return selectGroupAttributes(toScimGroup(group.department, group.members, baseUrl), selection);
  }

  /** The group with its ETag (also when the selection leaves meta out); a GET whose If-None-Match holds the tag is answered 304 (as the Users' answer does). */
  private answer(group: ScimGroupRead, selection: AttributeSelection, request: Request, response: Response): ScimObject {
    const whole = toScimGroup(group.department, group.members, publicBaseUrl(this.config, request));
    const etag = (whole.meta as { version: string }).version;
    const resource = selectGroupAttributes(whole, selection);
    response.setHeader('ETag', etag);
    if (request.method === 'POST') response.setHeader('Location', (whole.meta as { location: string }).location);
    if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
    return resource;
  }
}
