import { Injectable } from '@nestjs/common';
import { uuidV7Floor } from '../../common/ids/uuid-v7';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { auditEventColumns, type AuditEventRow } from './audit-event.mapper';

const COLUMNS = auditEventColumns('audit_events');

/** Which of an organization's events a list reads; every field is optional. */
export interface AuditEventFilter {
  resourceType?: string;
  resourceId?: string;
  action?: string;
  actorApiKeyId?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
}

/** The audit_events table: the audit trail's reads and its retention purge (events are written by AuditStatements, in each change's statement). */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly txHost: SqlHost) {}

  /**
   * Up to `limit` of the organization's events older than the event `beforeId` (all when
   * undefined), newest first by id (a UUID v7, so by the time each was written), on the replica.
   * `since` and `until` become an id range, so every filter walks the (organization_id, id DESC)
   * index, or (organization_id, resource_type, resource_id, id DESC) for one record's history.
   */
  list(organizationId: string, filter: AuditEventFilter, beforeId: string | undefined, limit: number): Promise<AuditEventRow[]> {
    const conditions = [Prisma.sql`organization_id = ${organizationId}::uuid`];
    if (filter.resourceType !== undefined) conditions.push(Prisma.sql`resource_type = ${filter.resourceType}`);
    if (filter.resourceId !== undefined) conditions.push(Prisma.sql`resource_id = ${filter.resourceId}`);
    if (filter.action !== undefined) conditions.push(Prisma.sql`action = ${filter.action}`);
    if (filter.actorApiKeyId !== undefined) conditions.push(Prisma.sql`actor_api_key_id = ${filter.actorApiKeyId}::uuid`);
    if (filter.since !== undefined) conditions.push(Prisma.sql`id >= ${uuidV7Floor(filter.since)}::uuid`);
    if (filter.until !== undefined) conditions.push(Prisma.sql`id < ${uuidV7Floor(filter.until)}::uuid`);
    if (beforeId !== undefined) conditions.push(Prisma.sql`id < ${beforeId}::uuid`);
    return this.txHost.replica.query<AuditEventRow>(Prisma.sql`
      SELECT ${COLUMNS} FROM audit_events WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY id DESC LIMIT ${limit}`);
  }

  /**
   * Deletes up to `batchSize` events that occurred before `before`, in one statement of its own;
   * returns how many. "Before" is an id range (event ids are UUID v7), read organization by
   * organization on the primary key (organization_id, id), and the rows are locked SKIP LOCKED, so
   * instances purging at once delete disjoint batches without waiting. Organizations are never
   * deleted, so every event is reached.
   */
  deleteBatchOlderThan(before: Date, batchSize: number): Promise<number> {
    return this.txHost.sql.execute(Prisma.sql`
      DELETE FROM audit_events AS a USING (
        SELECT old.organization_id, old.id FROM organizations AS o CROSS JOIN LATERAL (
          SELECT organization_id, id FROM audit_events
          WHERE organization_id = o.id AND id < ${uuidV7Floor(before)}::uuid ORDER BY id LIMIT ${batchSize} ${RowLock.forUpdateSkipLocked()}) AS old
        LIMIT ${batchSize}) AS batch
      WHERE a.organization_id = batch.organization_id AND a.id = batch.id`);
  }
}
