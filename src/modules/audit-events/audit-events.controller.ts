import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { AuditEventPageDto } from './dto/audit-event-page.dto';
import { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto';
import { AuditEventsScope } from './audit-events.scopes';
import { AuditEventsService } from './audit-events.service';

@ApiTags('Audit Events')
@Controller('api/openapi/v1/audit-events')
export class AuditEventsController {
  constructor(private readonly auditEvents: AuditEventsService) {}

  @Get()
  @RequireScope(AuditEventsScope.Read)
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'List audit events',
    description:
      "The organization's audit trail, newest first: one event per successful change (API or admin CLI), written in the " +
      'same transaction as the change, with who made it, from which request, and the fields that changed (old and new). ' +
      'Filters combine; `since` is inclusive and `until` exclusive. Pass `next_page_token` as `page_token` for the next, ' +
      'older page (null on the last one); events written while a client pages through are newer than its first page and ' +
      'do not shift the pages it reads. Events are kept for the retention the operator sets (AUDIT_RETENTION_DAYS, ' +
      'docs/audit.md).',
  })
  @ApiOkResponse({ type: AuditEventPageDto, description: 'One page of audit events.' })
  @ApiErrorResponses([
    ErrorCode.VALIDATION_FAILED,
    'A query parameter is invalid (an unknown action or resource_type, a date-time without a time zone, page_size outside 1–100, a page_token of another query, an unknown parameter); details names it.',
  ])
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    return this.auditEvents.list(principal.organizationId, query);
  }
}
