import { Injectable } from '@nestjs/common';
import { uuidV7Millis } from '../../common/ids/uuid-v7';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, startOfPage, UUID_V7_MILLISECONDS } from '../../common/pagination/page-token';
import { dateTimeInstant } from '../../common/validation/date-time';
import { toAuditEventDto } from './audit-event.mapper';
import { AuditEventsRepository, type AuditEventFilter } from './audit-events.repository';
import type { AuditEventPageDto } from './dto/audit-event-page.dto';
import type { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto';

@Injectable()
export class AuditEventsService {
  constructor(private readonly auditEvents: AuditEventsRepository) {}

  /** The organization's events, newest first by event_id, filtered: one statement per page, one row more than the page. */
  async list(organizationId: string, query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = [
      'audit-events',
      organizationId,
      query.resource_type ?? '',
      query.resource_id ?? '',
      query.action ?? '',
      query.actor_api_key_id ?? '',
      query.since ?? '',
      query.until ?? '',
    ];
    const position = startOfPage(tokenQuery, UUID_V7_MILLISECONDS, query.page_token, 'filters');
    const filter: AuditEventFilter = {
      resourceType: query.resource_type,
      resourceId: query.resource_id,
      action: query.action,
      actorApiKeyId: query.actor_api_key_id,
      since: query.since === undefined ? undefined : dateTimeInstant(query.since),
      until: query.until === undefined ? undefined : dateTimeInstant(query.until),
    };
    const rows = await this.auditEvents.list(organizationId, filter, position?.id, pageSize + 1);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(uuidV7Millis(row.eventId)), id: row.eventId }));
    return { items: page.items.map(toAuditEventDto), next_page_token: page.next_page_token };
  }
}
