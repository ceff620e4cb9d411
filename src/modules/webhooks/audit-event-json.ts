import { Prisma } from '../../generated/prisma/client';

/** The columns of audit_events a statement selects for auditEventJson (aliased `e`). */
export const AUDIT_EVENT_COLUMNS = Prisma.sql`e.id AS "eventId", e.occurred_at AS "occurredAt", e.action, e.resource_type AS "resourceType",
  e.resource_id AS "resourceId", e.actor_type AS "actorType", e.actor_api_key_id AS "actorApiKeyId", e.request_id AS "requestId",
  e.revision_before AS "revisionBefore", e.revision_after AS "revisionAfter", e.changes`;

export interface AuditEventRow {
  eventId: string;
  occurredAt: Date;
  action: string;
  resourceType: string;
  resourceId: string;
  actorType: string;
  actorApiKeyId: string | null;
  requestId: string | null;
  revisionBefore: bigint | null;
  revisionAfter: bigint | null;
  changes: unknown;
}

/** An audit event on the wire, as GET /audit-events shows it: the `data` of a webhook's payload. */
export function auditEventJson(row: AuditEventRow) {
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
