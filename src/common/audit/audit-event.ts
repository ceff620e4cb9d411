import { Prisma } from '../../generated/prisma/client';
import { uuidV7 } from '../ids/uuid-v7';
import { resourceTypeOf, type AuditAction } from './audit-actions';
import type { AuditActor } from './audit-actor';

/** What a secret shows as in `changes`: its field name is kept, its value never. */
export const REDACTED = 'redacted';

/** One changed field, under its wire name: `old` is null for a creation. */
export interface AuditChange {
  old: unknown;
  new: unknown;
}
export type AuditChanges = Record<string, AuditChange>;

/**
 * A value in the SQL statement that writes the event: known in JavaScript (a parameter), or a
 * Prisma.sql expression over the changed row (`Prisma.sql\`changed.id::text\``).
 */
type Value<T> = T | Prisma.Sql;

/** An audit event as the writer describes it; the kit adds its id, time and actor. */
export interface AuditEventInput {
  organizationId: Value<string>;
  action: AuditAction;
  resourceId: Value<string>;
  revisionBefore?: Value<bigint | null>;
  revisionAfter?: Value<bigint | null>;
  /** The changed fields as JSON values, or a jsonb expression (see sqlChanges). */
  changes: Value<AuditChanges>;
  /**
   * The event's id as an expression over the source's row, for a source of many rows (one event
   * each): each row picks its own of ids made with auditEventIds. Left out: one id for the one row.
   */
  eventId?: Prisma.Sql;
}

/** `count` event ids for a statement that writes an event per row of its source (AuditEventInput.eventId), each a v7 uuid of `at`. */
export function auditEventIds(context: AuditContext, count: number): string[] {
  return Array.from({ length: count }, () => uuidV7(context.at));
}

/** Who and when: the same for every event one request writes. */
export interface AuditContext {
  actor: AuditActor;
  /** The change's own time (its updated_at or created_at), so that the event and the row agree. */
  at: Date;
}

const sqlValue = (value: unknown, cast: string): Prisma.Sql =>
  value instanceof Prisma.Sql ? value : Prisma.sql`${value ?? null}::${Prisma.raw(cast)}`;

const COLUMNS = Prisma.raw(
  'id, organization_id, occurred_at, action, resource_type, resource_id, actor_type, actor_api_key_id, request_id, revision_before, revision_after, changes',
);

// One template for the whole row: it runs on every write, and each nested fragment costs.
function values(context: AuditContext, event: AuditEventInput): Prisma.Sql {
  const changes = event.changes instanceof Prisma.Sql ? event.changes : Prisma.sql`${changesJson(event.changes)}::jsonb`;
  const { actor } = context;
  return Prisma.sql`${event.eventId ?? uuidV7(context.at)}::uuid, ${sqlValue(event.organizationId, 'uuid')}, ${context.at}::timestamptz, ${event.action}, ${resourceTypeOf(event.action)},
    ${sqlValue(event.resourceId, 'text')}, ${actor.type}, ${actor.apiKeyId}::uuid, ${actor.requestId}::text,
    ${sqlValue(event.revisionBefore, 'bigint')}, ${sqlValue(event.revisionAfter, 'bigint')}, ${changes}`;
}

/** The channel on which a statement that queued webhook deliveries wakes the delivery workers. */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/**
 * Writes audit events, each with its webhook deliveries, in the statement of the change
 * (docs/audit.md, docs/webhooks.md). Holds DATABASE_NOTIFICATIONS, which decides whether the
 * statement wakes the delivery workers with NOTIFY: one instance per process, so that every
 * statement it builds has the same text on every call (a prepared statement, docs/adr/0003-prepared-statements-per-connection.md).
 */
export class AuditStatements {
  private readonly notify: string;
  private readonly deliveries: Prisma.Sql;

  constructor(notifications: 'on' | 'off') {
    // NOTIFY from RETURNING: a data-modifying CTE runs whether or not the statement reads it, and
    // its RETURNING is computed once per delivery queued, never when none is; PostgreSQL folds the
    // equal notifications of one transaction into one, sent at commit.
    this.notify = notifications === 'on' ? ` RETURNING pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')` : '';
    this.deliveries = this.deliveriesTo('webhook_endpoints');
  }

  /** One statement that writes one event and its deliveries: run it in the change's transaction, after the change. Its one row is the event's `id`. */
  insert(context: AuditContext, event: AuditEventInput): Prisma.Sql {
    return Prisma.sql`WITH audit_event AS (INSERT INTO audit_events (${COLUMNS}) VALUES (${values(context, event)}) RETURNING id, organization_id, action),
      ${this.deliveries} SELECT id FROM audit_event`;
  }

  /**
   * The event of a change made by the same statement, and its deliveries, as CTEs to list after
   * the change's own: one event per row of `source` (the CTE that changed at most one row; no row,
   * no event; a source of many rows gives each event its id by `eventId`), whose expressions may
   * name the source's columns. They are named audit_event and
   * audit_delivery (so one event per statement), and run even when nothing reads them, as every
   * data-modifying CTE does.
   *
   *   WITH changed AS (UPDATE … RETURNING …),
   *        ${audit.insertFrom(context, Prisma.sql`changed`, { …, resourceId: Prisma.sql`changed.id::text` })}
   *   SELECT … FROM changed
   *
   * `endpoints`: for a statement that itself creates or deletes webhook endpoints, a query of
   * (id, organization_id, event_types) of the endpoints as it leaves them, since all its CTEs see
   * the tables as they were before it.
   */
  insertFrom(context: AuditContext, source: Prisma.Sql, event: AuditEventInput, endpoints?: string): Prisma.Sql {
    return Prisma.sql`audit_event AS (INSERT INTO audit_events (${COLUMNS}) SELECT ${values(context, event)} FROM ${source} RETURNING id, organization_id, action),
      ${endpoints === undefined ? this.deliveries : this.deliveriesTo(`(${endpoints})`)}`;
  }

  /** One delivery of the event per endpoint of its organization subscribed to its action or to `*` (found through their organization_id index). */
  private deliveriesTo(endpoints: string): Prisma.Sql {
    return Prisma.raw(`audit_delivery AS (
      INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, next_attempt_at)
      SELECT gen_random_uuid(), audit_event.organization_id, target.id, audit_event.id, now()
      FROM audit_event JOIN ${endpoints} AS target ON target.organization_id = audit_event.organization_id
      WHERE audit_event.action = ANY (target.event_types) OR '*' = ANY (target.event_types)${this.notify})`);
  }
}

/**
 * `changes` as a jsonb expression over SQL values, for events written by AuditStatements.insertFrom: each
 * field `{old, new}` from two expressions (to_jsonb of each). With `onlyChanged`, a field whose
 * old and new values are not distinct is left out.
 */
export function sqlChanges(fields: Record<string, { old: Prisma.Sql | null; new: Prisma.Sql }>, { onlyChanged = false } = {}): Prisma.Sql {
  const entries = Object.entries(fields).map(([name, { old, new: next }]) => {
    // Field names are the code's wire names, written into the statement as literals (not parameters) so that a statement built from raw column references has none.
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`An audited field name must be a snake_case wire name, got "${name}"`);
    const oldJson = old === null ? Prisma.raw('NULL::jsonb') : Prisma.sql`to_jsonb(${old})`;
    const entry = Prisma.sql`jsonb_build_object(${Prisma.raw(`'${name}'`)}, jsonb_build_object('old', ${oldJson}, 'new', to_jsonb(${next})))`;
    return onlyChanged && old !== null ? Prisma.sql`CASE WHEN ${old} IS DISTINCT FROM ${next} THEN ${entry} ELSE '{}'::jsonb END` : entry;
  });
  return entries.length === 0 ? Prisma.raw(`'{}'::jsonb`) : Prisma.join(entries, ' || ');
}

/** Changes of a creation from the created fields: old is null for each. */
export function created(fields: Record<string, unknown>): AuditChanges {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, { old: null, new: value }]));
}

/** The changes as JSON text: int64 values as JSON numbers, dates as ISO 8601 UTC (the wire's forms). */
function changesJson(changes: AuditChanges): string {
  return JSON.stringify(changes, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));
}
