import { Body, Controller, Delete, Get, Headers, HttpCode, HttpStatus, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiNoContentResponse, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ApiJsonBody } from '../../common/openapi/api-json-body.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { ifNoneMatchHolds, revisionETag } from '../../common/http/entity-tags';
import { REVISION_CONFLICT, revisionRequirement } from '../../common/http/write-preconditions';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { DepartmentsService } from './departments.service';
import { CreateDepartmentDto } from './dto/create-department.dto';
import { DepartmentDto } from './dto/department.dto';
import { DepartmentListDto, DepartmentPageDto } from './dto/department-page.dto';
import { ListDepartmentsQueryDto } from './dto/list-departments-query.dto';
import { UpdateDepartmentDto } from './dto/update-department.dto';
import { DirectoryScope } from './directory.scopes';
import { DirectoryError } from './directory.errors';

const ETAG_HEADER = {
  ETag: { description: 'The strong entity tag of the department: its revision in quotes ("3").', required: true, schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' } },
};

const ID_PARAM = { name: 'department_id', format: 'uuid', description: 'Identifier of the department (any case).' };

const IF_MATCH_HEADER = {
  name: 'If-Match',
  required: false,
  description:
    'The ETag of the department as you read it, `"<revision>"`: the change applies only at that revision, else 412 ' +
    'PRECONDITION_FAILED (details.suggestion: the current revision). `*` means any revision. A weak tag, a list or anything else is 400 `invalid_format`.',
};

const IF_NONE_MATCH_ON_WRITE = {
  name: 'If-None-Match',
  required: false,
  description: 'Only `*` (RFC 9110): change the department only if it does not exist, which is never, so the answer is 412 PRECONDITION_FAILED (404 when there is none). Any other value is 400 `invalid_format`.',
};

@ApiTags('Directory')
@Controller('api/openapi/v1/departments')
export class DepartmentsController {
  constructor(private readonly departments: DepartmentsService) {}

  @Post()
  @RequireScope(DirectoryScope.Manage)
  @Idempotent()
  @ApiOperation({
    operationId: 'createDepartment',
    summary: 'Create department',
    description:
      'Adds a department to the organization directory. `order` is assigned by the server: the next value after the ' +
      'largest among the new department\'s siblings (first child: 1). A tree is at most 32 levels deep.',
  })
  @ApiJsonBody(CreateDepartmentDto, {
    topLevel: { summary: 'A top-level department', value: { name: 'Research' } },
    withExternalId: { summary: 'With its id in the source system', value: { name: 'Human Resources', external_id: 'hr-4711' } },
    child: {
      summary: 'A child department',
      description: 'parent_id must name a department of your organization: paste the department_id of one you created.',
      value: { name: 'Payroll', external_id: 'hr-4712', parent_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' },
    },
  })
  @ApiCreatedResponse({ type: DepartmentDto, description: 'The created department.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value breaks its schema or an unknown field was sent; details names the first failing field.'],
    [DirectoryError.DEPARTMENT_NAME_CONFLICT, 'A sibling department (same parent) already has this name, compared by Unicode case folding in NFC.'],
    [DirectoryError.EXTERNAL_ID_CONFLICT, 'Another department of the organization already has this external_id.'],
    [DirectoryError.PARENT_NOT_FOUND, 'parent_id names no department of this organization (details.field `parent_id`, reason `not_found`).'],
    [DirectoryError.DEPARTMENT_TOO_DEEP, 'The parent is at level 32, the deepest a tree may go (details.field `parent_id`).'],
  )
  create(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Body() body: CreateDepartmentDto): Promise<DepartmentDto> {
    return this.departments.create(principal.organizationId, body, actor);
  }

  @Get(':department_id')
  @RequireScope(DirectoryScope.Read)
  @ApiOperation({
    operationId: 'getDepartment',
    summary: 'Get department',
    description:
      'Reads one department of the organization, with `ETag: "<revision>"`. With `If-None-Match` holding the current tag ' +
      'the answer is 304 with no body; send the tag as `If-Match` with a PATCH or DELETE to change exactly what was read.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is still current.' })
  @ApiOkResponse({ type: DepartmentDto, description: 'The department.', headers: ETAG_HEADER })
  @ApiNotModifiedResponse({ description: 'If-None-Match holds the current ETag: the copy the client holds is current (no body).', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no department with this id.'],
  )
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DepartmentDto> {
    return answerWithETag(await this.departments.get(principal.organizationId, departmentId), request, response);
  }

  @Patch(':department_id')
  @RequireScope(DirectoryScope.Manage)
  @ApiOperation({
    operationId: 'updateDepartment',
    summary: 'Update department',
    description:
      'Renames, re-identifies (external_id), reorders or moves a department. A move (parent_id) takes the whole subtree ' +
      'along; a department without an explicit `order` gets the next order among its new siblings. The rules of create ' +
      'apply to the new values (sibling names against the new siblings). A request that changes something increments ' +
      '`revision` by exactly 1, sets `updated_at` and writes the audit event `department.updated` with the old and new ' +
      'values of the changed fields; one that changes nothing returns the department as stored and writes nothing. A ' +
      'refused request changes nothing. Answers with the new ETag.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiJsonBody(UpdateDepartmentDto, {
    rename: { summary: 'Rename', value: { name: 'Research and Development' } },
    guarded: {
      summary: 'Only if unchanged since read (type the revision you read first)',
      description: 'expected_revision: type the `revision` of your last read (GET); a stale one is 409 REVISION_CONFLICT and changes nothing.',
      value: { expected_revision: 1, name: 'Research and Development' },
    },
    toTopLevel: { summary: 'Move to the top level', value: { parent_id: null } },
    move: {
      summary: 'Move under another department',
      description: 'parent_id must name a department of your organization outside this one\'s subtree: paste the department_id of one you created.',
      value: { parent_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', order: 1 },
    },
  })
  @ApiOkResponse({ type: DepartmentDto, description: 'The current or updated department.', headers: ETAG_HEADER })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value, the path parameter or a precondition header breaks its schema (details names it), or If-Match and expected_revision name different revisions.'],
    [ErrorCode.NOT_FOUND, 'The organization has no department with this id.'],
    [REVISION_CONFLICT, 'expected_revision differs from the stored revision (details.suggestion is the current one); nothing changed.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
    [DirectoryError.DEPARTMENT_NAME_CONFLICT, 'A sibling department (under the new parent, when moved) already has this name, compared by Unicode case folding in NFC.'],
    [DirectoryError.EXTERNAL_ID_CONFLICT, 'Another department of the organization already has this external_id.'],
    [DirectoryError.DEPARTMENT_CYCLE, 'parent_id is the department itself or one of its descendants (details.field `parent_id`).'],
    [DirectoryError.PARENT_NOT_FOUND, 'parent_id names no department of this organization (details.field `parent_id`, reason `not_found`).'],
    [DirectoryError.DEPARTMENT_TOO_DEEP, 'The move would put a department of the subtree below level 32 (details.field `parent_id`).'],
  )
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Body() body: UpdateDepartmentDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DepartmentDto> {
    const requirement = revisionRequirement({ ifMatch, ifNoneMatch }, body.expected_revision);
    return answerWithETag(await this.departments.update(principal.organizationId, departmentId, body, requirement, actor), request, response);
  }

  @Delete(':department_id')
  @RequireScope(DirectoryScope.Manage)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'deleteDepartment',
    summary: 'Delete department',
    description:
      'Removes a department that has no child departments and no members; afterwards it is 404 everywhere and its name and ' +
      'external_id are free. Writes the audit event `department.deleted` with its last values.',
  })
  @ApiParam(ID_PARAM)
  @ApiHeader(IF_MATCH_HEADER)
  @ApiHeader(IF_NONE_MATCH_ON_WRITE)
  @ApiNoContentResponse({ description: 'The department is gone.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'The path parameter or a precondition header breaks its schema; details names it.'],
    [ErrorCode.NOT_FOUND, 'The organization has no department with this id.'],
    [ErrorCode.PRECONDITION_FAILED, 'If-Match names another revision than the stored one (details.suggestion is the current one), or If-None-Match is *; nothing changed.'],
    [DirectoryError.DEPARTMENT_NOT_EMPTY, 'The department has child departments or members (detail says how many of each); nothing changed.'],
  )
  async delete(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
  ): Promise<void> {
    await this.departments.delete(principal.organizationId, departmentId, revisionRequirement({ ifMatch, ifNoneMatch }), actor);
  }

  @Get(':department_id/ancestors')
  @RequireScope(DirectoryScope.Read)
  @ApiOperation({
    operationId: 'listDepartmentAncestors',
    summary: 'List department ancestors',
    description: 'The departments above this one, from the top level down to its parent; empty for a top-level department.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: DepartmentListDto, description: 'The ancestors, top level first.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no department with this id.'],
  )
  async ancestors(@CurrentPrincipal() principal: Principal, @Param('department_id', UuidParamPipe) departmentId: string): Promise<DepartmentListDto> {
    return { items: await this.departments.ancestors(principal.organizationId, departmentId) };
  }

  @Get()
  @RequireScope(DirectoryScope.Read)
  @ApiOperation({
    operationId: 'listDepartments',
    summary: 'List departments',
    description:
      'Lists the children of one department (`parent_id`), or the top-level departments when it is absent, ordered by ' +
      '`order` then `department_id`, one page at a time: pass `next_page_token` as `page_token` for the next page ' +
      '(null on the last one). Departments created while a client pages through come after the pages it has read, so ' +
      'none is skipped or repeated. A token works on every instance and only for the query and organization that ' +
      'produced it.\n\nWith `recursive=true`, lists every department below `parent_id` at any depth (the whole tree ' +
      'without it), each before its descendants, in the order of their positions in the tree (ids from the top level ' +
      'down); a move while a client pages through may move a subtree before or after the pages it has read.\n\nWith `external_id`, finds the department with that source-system id anywhere in the tree ' +
      'instead: a list of zero or one, so that a directory sync can map its own ids without keeping state.',
  })
  @ApiOkResponse({ type: DepartmentPageDto, description: 'One page of departments.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A query parameter is invalid (page_size outside 1–100, recursive not true or false, a page_token of another query or after a department since deleted, an unknown parameter, external_id with parent_id, recursive or page_token); details names it.'],
    [ErrorCode.NOT_FOUND, 'parent_id names no department of this organization.'],
  )
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListDepartmentsQueryDto): Promise<DepartmentPageDto> {
    return this.departments.list(principal.organizationId, query);
  }
}

/**
 * The department as answered, with its revision as ETag. On a GET whose If-None-Match holds that
 * tag, Express sends 304 without the body; `request.fresh` is set by hand because Express alone
 * answers 200 when the request also says `Cache-Control: no-cache`, which fetch() adds to every
 * request given If-None-Match (the directive is for caches: RFC 9110, 13.2.1).
 */
function answerWithETag(answer: DepartmentDto, request: Request, response: Response): DepartmentDto {
  const etag = revisionETag(answer.revision);
  response.setHeader('ETag', etag);
  if (request.method === 'GET' && ifNoneMatchHolds(request.headers['if-none-match'], etag)) Object.defineProperty(request, 'fresh', { value: true });
  return answer;
}
