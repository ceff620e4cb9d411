import { Injectable } from '@nestjs/common';
import { uuidV7Floor, uuidV7Millis } from '../../common/ids/uuid-v7';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, startOfPage, UUID_V7_MILLISECONDS } from '../../common/pagination/page-token';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { auditEventColumns, toAuditEventDto, type AuditEventRow } from './audit-event.mapper';
import type { AuditEventPageDto } from './dto/audit-event-page.dto';
import type { ListAuditEventsQueryDto } from './dto/list-audit-events-query.dto';

const COLUMNS = auditEventColumns('audit_events');

@Injectable()
export class AuditEventsService {
  constructor(private readonly txHost: SqlHost) {}

  /**
   * The organization's events, newest first by event_id (a UUID v7, so by the time each was
   * written), filtered. `since` and `until` become an id range, so every filter walks the
   * (organization_id, id DESC) index, or (organization_id, resource_type, resource_id, id DESC)
   * for one record's history; one statement per page, one row more than the page.
   */
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
    const conditions = [Prisma.sql`organization_id = ${organizationId}::uuid`];
    if (query.resource_type !== undefined) conditions.push(Prisma.sql`resource_type = ${query.resource_type}`);
    if (query.resource_id !== undefined) conditions.push(Prisma.sql`resource_id = ${query.resource_id}`);
    if (query.action !== undefined) conditions.push(Prisma.sql`action = ${query.action}`);
    if (query.actor_api_key_id !== undefined) conditions.push(Prisma.sql`actor_api_key_id = ${query.actor_api_key_id}::uuid`);
    if (query.since !== undefined) conditions.push(Prisma.sql`id >= ${uuidV7Floor(new Date(query.since))}::uuid`);
    if (query.until !== undefined) conditions.push(Prisma.sql`id < ${uuidV7Floor(new Date(query.until))}::uuid`);
    if (position) conditions.push(Prisma.sql`id < ${position.id}::uuid`);
    const rows = await this.txHost.replica.query<AuditEventRow>(Prisma.sql`
      SELECT ${COLUMNS} FROM audit_events WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY id DESC LIMIT ${pageSize + 1}`);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(uuidV7Millis(row.eventId)), id: row.eventId }));
    return { items: page.items.map(toAuditEventDto), next_page_token: page.next_page_token };
  }
}
