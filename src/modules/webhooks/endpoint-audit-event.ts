import type { AuditActor } from '../../common/audit/audit-actor';
import { REDACTED, sqlChanges, type AuditStatements } from '../../common/audit/audit-event';
import { Prisma } from '../../generated/prisma/client';
import { WebhooksAudit } from './webhooks.audit';

const AUDITED_COLUMNS = ['url', 'event_types', 'description'] as const;

/**
 * The audit event of the endpoint row in the CTE `rows` (the one just created or deleted), as
 * further CTEs of the endpoint's statement: the change, its event and the event's deliveries
 * commit together. A created endpoint subscribed to its own creation receives it; a deleted one
 * does not receive its deletion. The secret shows only as redacted.
 */
export function endpointAuditEventInsert(
  audit: AuditStatements,
  change: 'created' | 'deleted',
  rows: string,
  at: Date,
  actor: AuditActor,
): Prisma.Sql {
  const created = change === 'created';
  const column = (name: string) => Prisma.raw(`${rows}.${name}`);
  const fields = Object.fromEntries(
    AUDITED_COLUMNS.map((name) => [name, created ? { old: null, new: column(name) } : { old: column(name), new: Prisma.raw('NULL::text') }]),
  );
  const changes = Prisma.sql`${sqlChanges(fields)} || ${Prisma.raw(`'{"secret": {"old": ${created ? 'null' : `"${REDACTED}"`}, "new": ${created ? `"${REDACTED}"` : 'null'}}}'::jsonb`)}`;
  // The statement's CTEs see webhook_endpoints as it was before the statement.
  const endpoints = created
    ? `SELECT id, organization_id, event_types FROM webhook_endpoints UNION ALL SELECT id, organization_id, event_types FROM ${rows}`
    : `SELECT id, organization_id, event_types FROM webhook_endpoints WHERE id NOT IN (SELECT id FROM ${rows})`;
  return audit.insertFrom(
    { actor, at },
    Prisma.raw(rows),
    { organizationId: column('organization_id'), action: created ? WebhooksAudit.EndpointCreated : WebhooksAudit.EndpointDeleted, resourceId: Prisma.sql`${column('id')}::text`, changes },
    endpoints,
  );
}
