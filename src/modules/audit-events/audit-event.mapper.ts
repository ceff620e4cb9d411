import { Prisma } from '../../generated/prisma/client';
import type { AuditEventDto } from './dto/audit-event.dto';

/** An audit_events row as auditEventColumns selects it. */
export interface AuditEventRow {
  eventId: string;
  occurredAt: Date;
  action: string;
  resourceType: string;
  resourceId: string;
  actorType: 'api_key' | 'cli';
  actorApiKeyId: string | null;
  requestId: string | null;
  revisionBefore: bigint | null;
  revisionAfter: bigint | null;
  changes: AuditEventDto['changes'];
}

/**
 * The columns of audit_events (under the alias `table` of the statement's FROM) that
 * toAuditEventDto maps: the list reads them, and the webhook worker reads them with a delivery.
 */
export function auditEventColumns(table: string): Prisma.Sql {
  const t = (column: string) => `${table}.${column}`;
  return Prisma.raw(
    `${t('id')} AS "eventId", ${t('occurred_at')} AS "occurredAt", ${t('action')}, ${t('resource_type')} AS "resourceType", ` +
      `${t('resource_id')} AS "resourceId", ${t('actor_type')} AS "actorType", ${t('actor_api_key_id')} AS "actorApiKeyId", ` +
      `${t('request_id')} AS "requestId", ${t('revision_before')} AS "revisionBefore", ${t('revision_after')} AS "revisionAfter", ${t('changes')}`,
  );
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
