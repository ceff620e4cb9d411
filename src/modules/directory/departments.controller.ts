import { Body, Controller, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { DepartmentsService } from './departments.service';
import { CreateDepartmentDto } from './dto/create-department.dto';
import { DepartmentDto } from './dto/department.dto';
import { DirectoryScope } from './directory.scopes';

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
  @ApiCreatedResponse({ type: DepartmentDto, description: 'The created department.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'A body value breaks its schema or an unknown field was sent; details names the first failing field.'],
    [ErrorCode.INVALID_JSON, 'The body is not parseable JSON.'],
    [ErrorCode.DEPARTMENT_NAME_CONFLICT, 'A sibling department (same parent) already has this name, ignoring case.'],
    [ErrorCode.EXTERNAL_ID_CONFLICT, 'Another department of the organization already has this external_id.'],
    [ErrorCode.PARENT_NOT_FOUND, 'parent_id names no department of this organization (details.field `parent_id`, reason `not_found`).'],
    [ErrorCode.PAYLOAD_TOO_LARGE, 'The body is larger than the configured limit (1 MiB by default).'],
    [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The body is not application/json.'],
  )
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateDepartmentDto): Promise<DepartmentDto> {
    return this.departments.create(principal.organizationId, body);
  }
}
