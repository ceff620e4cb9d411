import { randomBytes } from 'node:crypto';

/** Who makes a change, as the audit event records it: the caller's API key and its X-Request-Id. */
export interface Actor {
  apiKeyId: string;
  requestId: string;
}

/** The part of an audited statement's parameters that every event has: its id, its time, the key and the request id. */
export interface AuditParameters {
  /** The change's time: the row's created_at or updated_at, and the event's occurred_at. */
  at: Date;
  values: [eventId: string, at: Date, apiKeyId: string, requestId: string];
}

export function auditParameters(actor: Actor): AuditParameters {
  const at = new Date();
  return { at, values: [uuidV7(at), at, actor.apiKeyId, actor.requestId] };
}

/** What an event holds besides its id, time and actor: SQL expressions over the statement's CTEs. */
export interface AuditedChange {
  /** The CTEs the event is made from (one row: one event; none: none). */
  from: string;
  /** The number of the first of the statement's four AuditParameters values. */
  firstParameter: number;
  organizationId: string;
  /** `<resource_type>.<verb>`, written into the statement as a literal. */
  action: string;
  resourceId: string;
  revisionBefore: string;
  revisionAfter: string;
  changes: string;
}

/**
 * The service's audit event and webhook outbox (docs/audit.md, docs/webhooks.md) as two CTEs to
 * list after the change's own: the event row, then one delivery per endpoint of the organization
 * subscribed to the action or to `*`, which wakes the delivery workers with NOTIFY from its
 * RETURNING, as the service's statements do.
 */
export function auditCtes(change: AuditedChange): string {
  const [id, at, apiKeyId, requestId] = [0, 1, 2, 3].map((offset) => `$${change.firstParameter + offset}`);
  const resourceType = change.action.slice(0, change.action.indexOf('.'));
  return `audit_event AS (
    INSERT INTO audit_events (id, organization_id, occurred_at, action, resource_type, resource_id, actor_type, actor_api_key_id, request_id, revision_before, revision_after, changes)
    SELECT ${id}::uuid, ${change.organizationId}, ${at}::timestamptz, '${change.action}', '${resourceType}', ${change.resourceId}, 'api_key', ${apiKeyId}::uuid, ${requestId}::text,
      ${change.revisionBefore}, ${change.revisionAfter}, ${change.changes}
    FROM ${change.from}
    RETURNING id, organization_id),
  audit_delivery AS (
    INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, next_attempt_at)
    SELECT gen_random_uuid(), e.organization_id, w.id, e.id, now()
    FROM audit_event e JOIN webhook_endpoints w ON w.organization_id = e.organization_id
    WHERE '${change.action}' = ANY (w.event_types) OR '*' = ANY (w.event_types)
    RETURNING pg_notify('webhook_deliveries', ''))`;
}

/** `{"<field>": {"old": <old>, "new": <new>}}` as a jsonb expression. */
export function changed(field: string, old: string, next: string): string {
  return `jsonb_build_object('${field}', jsonb_build_object('old', ${old}, 'new', ${next}))`;
}

/** A UUID version 7: 48 bits of Unix milliseconds, then random bits (the event ids sort by time). */
function uuidV7(at: Date): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at.getTime(), 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
