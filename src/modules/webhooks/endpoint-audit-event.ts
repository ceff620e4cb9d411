import type { AuditActor } from '../../common/audit/audit-actor';
import { auditInsertFrom, REDACTED, sqlChanges } from '../../common/audit/audit-event';
import { Prisma } from '../../generated/prisma/client';

const AUDITED_COLUMNS = ['url', 'event_types', 'description'] as const;

/**
 * The audit event of the endpoint row in the CTE `rows` (the one just created or deleted), as
 * another CTE of the endpoint's statement: the change and its event commit together, and the
 * audit trigger queues their webhook deliveries. The secret shows only as redacted.
 */
export function endpointAuditEventInsert(action: 'webhook_endpoint.created' | 'webhook_endpoint.deleted', rows: string, at: Date, actor: AuditActor): Prisma.Sql {
  const created = action === 'webhook_endpoint.created';
  const column = (name: string) => Prisma.raw(`${rows}.${name}`);
  const fields = Object.fromEntries(
    AUDITED_COLUMNS.map((name) => [name, created ? { old: null, new: column(name) } : { old: column(name), new: Prisma.raw('NULL::text') }]),
  );
  const changes = Prisma.sql`${sqlChanges(fields)} || ${Prisma.raw(`'{"secret": {"old": ${created ? 'null' : `"${REDACTED}"`}, "new": ${created ? `"${REDACTED}"` : 'null'}}}'::jsonb`)}`;
  return auditInsertFrom({ actor, at }, Prisma.raw(rows), {
    organizationId: column('organization_id'),
    action,
    resourceId: Prisma.sql`${column('id')}::text`,
    changes,
  });
}
