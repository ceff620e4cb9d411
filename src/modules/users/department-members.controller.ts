import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { DirectoryScope } from '../directory/directory.scopes';
import { DepartmentMembersService } from './department-members.service';
import { ListMembersQueryDto } from './dto/list-members-query.dto';
import { MemberPageDto } from './dto/member-page.dto';
import { MembershipsError } from './memberships.errors';
import { UserDto } from './dto/user.dto';

const DEPARTMENT_PARAM = { name: 'department_id', format: 'uuid', description: 'Identifier of the department (any case).' };
const USER_PARAM = { name: 'user_id', format: 'uuid', description: 'Identifier of the user (any case).' };

@ApiTags('Directory')
@Controller('api/openapi/v1/departments/:department_id/members')
export class DepartmentMembersController {
  constructor(private readonly members: DepartmentMembersService) {}

  @Put(':user_id')
  @RequireScope(DirectoryScope.Manage)
  @ApiOperation({
    operationId: 'addDepartmentMember',
    summary: 'Add member',
    description:
      'Makes the user a member of the department: 201 when added, 200 when it already was (nothing changes, no event); ' +
      'a user has at most 50 departments. ' +
      'A user without a primary department gets this one. Adding changes the user: its `revision` + 1, `updated_at` and ETag. ' +
      'Writes the audit event `department.member_added` (resource: the department; `changes` names `user_id`, and ' +
      '`primary_department_id` when it changed). Idempotent by itself: no Idempotency-Key.',
  })
  @ApiParam(DEPARTMENT_PARAM)
  @ApiParam(USER_PARAM)
  @ApiCreatedResponse({ type: UserDto, description: 'Added: the user as it is now (as GET /users/{user_id} answers it).' })
  @ApiOkResponse({ type: UserDto, description: 'Already a member: the user, unchanged.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id or user_id is not a uuid; details names it.'],
    [ErrorCode.NOT_FOUND, 'No such department (details.field `department_id`) or user (details.field `user_id`) in this organization; the department is checked first.'],
    [MembershipsError.USER_DEPARTMENT_LIMIT_REACHED, 'The user is a member of 50 departments already, the most a user may have (details.field `user_id`); nothing changed.'],
  )
  async add(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Param('user_id', UuidParamPipe) userId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UserDto> {
    const { added, member } = await this.members.add(principal.organizationId, departmentId, userId, actor);
    response.status(added ? HttpStatus.CREATED : HttpStatus.OK);
    return member;
  }

  @Delete(':user_id')
  @RequireScope(DirectoryScope.Manage)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'removeDepartmentMember',
    summary: 'Remove member',
    description:
      'Ends the user\'s membership of the department. When it was the user\'s primary department, its earliest-added ' +
      'remaining membership becomes primary (null when none is left). The user\'s `revision` + 1. Writes the audit event ' +
      '`department.member_removed`.',
  })
  @ApiParam(DEPARTMENT_PARAM)
  @ApiParam(USER_PARAM)
  @ApiNoContentResponse({ description: 'The user is no longer a member.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id or user_id is not a uuid; details names it.'],
    [ErrorCode.NOT_FOUND, 'No such department (details.field `department_id`), or no such user or not a member of it (details.field `user_id`).'],
  )
  async remove(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Param('user_id', UuidParamPipe) userId: string,
  ): Promise<void> {
    await this.members.remove(principal.organizationId, departmentId, userId, actor);
  }

  @Get()
  @RequireScope(DirectoryScope.Read)
  @ApiOperation({
    operationId: 'listDepartmentMembers',
    summary: 'List members',
    description:
      'The department\'s members ordered by `user_id`, one page at a time (pass `next_page_token` as `page_token`). ' +
      'With `recursive=true`, the members of the department and of every department below it, each user once.',
  })
  @ApiParam(DEPARTMENT_PARAM)
  @ApiOkResponse({ type: MemberPageDto, description: 'One page of members.' })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'department_id or a query parameter is invalid (recursive not true/false, page_size outside 1–100, a page_token of another query, an unknown parameter); details names it.'],
    [ErrorCode.NOT_FOUND, 'No such department in this organization.'],
  )
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('department_id', UuidParamPipe) departmentId: string,
    @Query() query: ListMembersQueryDto,
  ): Promise<MemberPageDto> {
    return this.members.list(principal.organizationId, departmentId, query);
  }
}
