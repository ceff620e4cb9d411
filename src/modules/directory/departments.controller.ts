import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ApiJsonBody } from '../../common/openapi/api-json-body.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { DepartmentsService } from './departments.service';
import { CreateDepartmentDto } from './dto/create-department.dto';
import { DepartmentDto } from './dto/department.dto';
import { DepartmentPageDto } from './dto/department-page.dto';
import { ListDepartmentsQueryDto } from './dto/list-departments-query.dto';
import { DirectoryScope } from './directory.scopes';
import { DirectoryError } from './directory.errors';

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
      'largest among the new department\'s siblings (first child: 1).',
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
  )
  create(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Body() body: CreateDepartmentDto): Promise<DepartmentDto> {
    return this.departments.create(principal.organizationId, body, actor);
  }

  @Get(':department_id')
  @RequireScope(DirectoryScope.Read)
  @ApiOperation({
    operationId: 'getDepartment',
    summary: 'Get department',
    description: 'Reads one department of the organization, with the fields create returns.',
  })
  @ApiParam({ name: 'department_id', format: 'uuid', description: 'Identifier of the department (any case).' })
  @ApiOkResponse({ type: DepartmentDto, description: 'The department.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'The organization has no department with this id.'],
  )
  get(@CurrentPrincipal() principal: Principal, @Param('department_id', UuidParamPipe) departmentId: string): Promise<DepartmentDto> {
    return this.departments.get(principal.organizationId, departmentId);
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
      'produced it.\n\nWith `external_id`, finds the department with that source-system id anywhere in the tree ' +
      'instead: a list of zero or one, so that a directory sync can map its own ids without keeping state.',
  })
  @ApiOkResponse({ type: DepartmentPageDto, description: 'One page of departments.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A query parameter is invalid (page_size outside 1–100, a page_token of another query, an unknown parameter, external_id with parent_id or page_token); details names it.'],
    [ErrorCode.NOT_FOUND, 'parent_id names no department of this organization.'],
  )
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListDepartmentsQueryDto): Promise<DepartmentPageDto> {
    return this.departments.list(principal.organizationId, query);
  }
}
