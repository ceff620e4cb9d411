import type { AuditActor } from '../../common/audit/audit-actor';
import { columns, type RowOf } from '../../database/columns';
import { Prisma, type AuditEvent } from '../../generated/prisma/client';
import type { AuditEventDto } from './dto/audit-event.dto';

const storedColumns = (table: string) =>
  columns<AuditEvent>(table)('occurredAt', 'action', 'resourceType', 'resourceId', 'actorType', 'actorApiKeyId', 'requestId', 'revisionBefore', 'revisionAfter', 'changes');

/** An audit_events row as auditEventColumns selects it: its id as `eventId`, the actor type and changes as the writer (AuditStatements) writes them. */
export type AuditEventRow = Omit<RowOf<ReturnType<typeof storedColumns>>, 'actorType' | 'changes'> & {
  eventId: AuditEvent['id'];
  actorType: AuditActor['type'];
  changes: AuditEventDto['changes'];
};

/**
 * The columns of audit_events (under the alias `table` of the statement's FROM) that
 * toAuditEventDto maps: the list reads them, and the webhook worker reads them with a delivery.
 */
export function auditEventColumns(table: string): Prisma.Sql {
  return Prisma.sql`${Prisma.raw(`${table}."id" AS "eventId"`)}, ${storedColumns(table).sql}`;
}

/** An audit event on the wire: as GET /audit-events lists it, and the `data` of its webhook payload. */
export function toAuditEventDto(row: AuditEventRow): AuditEventDto {
  return {
    event_id: row.eventId,
    occurred_at: row.occurredAt.toISOString(),
    action: row.action,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    actor: { type: row.actorType, api_key_id: row.actorApiKeyId },
    request_id: row.requestId,
    revision_before: row.revisionBefore === null ? null : Number(row.revisionBefore),
    revision_after: row.revisionAfter === null ? null : Number(row.revisionAfter),
    changes: row.changes,
  };
}
