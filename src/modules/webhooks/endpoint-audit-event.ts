import { uuidV7 } from '../../common/ids/uuid-v7';
import { Prisma } from '../../generated/prisma/client';

/** Who made a change through the API: the key and the request (X-Request-Id). */
export interface ApiActor {
  apiKeyId: string;
  requestId: string | null;
}

/**
 * An endpoint's fields as an audit event's `changes` (each with its old and new value; the secret
 * only as `"redacted"`), as a jsonb expression over the columns of the row `side` names.
 */
export function endpointChanges(side: 'new' | 'old'): Prisma.Sql {
  const values = (column: string) => {
    const value = Prisma.raw(`to_jsonb(${column})`);
    return side === 'new' ? Prisma.sql`jsonb_build_object('old', NULL, 'new', ${value})` : Prisma.sql`jsonb_build_object('old', ${value}, 'new', NULL)`;
  };
  return Prisma.sql`jsonb_build_object('url', ${values('url')}, 'event_types', ${values('event_types')},
    'description', ${values('description')}, 'secret', 'redacted')`;
}

/**
 * The INSERT of the audit event of each endpoint row of the CTE `rows` (the one just created or
 * deleted), written as another CTE of the endpoint's statement: the change and its event commit
 * together, and the audit trigger queues their webhook deliveries. Written here until the audit
 * module's shared writer lands.
 */
export function endpointAuditEventInsert(
  action: 'webhook_endpoint.created' | 'webhook_endpoint.deleted',
  rows: string,
  occurredAt: Date,
  actor: ApiActor,
): Prisma.Sql {
  return Prisma.sql`INSERT INTO audit_events (id, organization_id, occurred_at, action, resource_type, resource_id, actor_type, actor_api_key_id, request_id, changes)
    SELECT ${uuidV7(occurredAt)}::uuid, organization_id, ${occurredAt}, ${action}, 'webhook_endpoint', id::text, 'api_key',
      ${actor.apiKeyId}::uuid, ${actor.requestId}, ${endpointChanges(action === 'webhook_endpoint.created' ? 'new' : 'old')}
    FROM ${Prisma.raw(rows)}`;
}
