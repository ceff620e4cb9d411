import type { AuditEventDto } from './dto/audit-event.dto';

/** An audit_events row as the list reads it. */
export interface AuditEventRow {
  id: string;
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

export function toAuditEventDto(row: AuditEventRow): AuditEventDto {
  return {
    event_id: row.id,
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
