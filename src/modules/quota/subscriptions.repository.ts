import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditStatements, type AuditContext } from '../../common/audit/audit-event';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Subscription } from '../../generated/prisma/client';
import { QuotaAudit } from './quota.audit';

/** What the metering policy reads of an organization's subscription. */
export type MeteringSubscriptionRow = Pick<Subscription, 'anchorAt' | 'updatedAt'> & {
  /** How long ago the data read was current (a lagging replica), in milliseconds; absent on the primary. */
  behindMs?: number | null;
};

// The hot read of GET /metering-policy: its text is a prepared statement's key, keep it as it is.
const subscriptionStatement = (organizationId: string) => Prisma.sql`
  SELECT anchor_at AS "anchorAt", updated_at AS "updatedAt" FROM subscriptions WHERE organization_id = ${organizationId}::uuid`;

/**
 * With DATABASE_REPLICA_URL: a hot standby that has replayed all the WAL it received is current
 * (up to the streaming delay); one with WAL still to replay holds the data as of its last replayed
 * commit. On the primary (no replica, or the failover) pg_is_in_recovery() is false: null.
 */
const subscriptionWithLagStatement = (organizationId: string) => Prisma.sql`
  SELECT anchor_at AS "anchorAt", updated_at AS "updatedAt",
    CASE WHEN pg_is_in_recovery() AND pg_last_wal_receive_lsn() IS DISTINCT FROM pg_last_wal_replay_lsn()
      THEN GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8
    END AS "behindMs"
  FROM subscriptions WHERE organization_id = ${organizationId}::uuid`;

/** The subscriptions table: the statements of the quota module. */
@Injectable()
export class SubscriptionsRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * On the read replica when there is one (the policy is cached for METERING_CACHE_TTL_MS anyway);
   * `withReplicaLag` also reads how far the replica's data is behind (`behindMs`).
   */
  async findForMetering(organizationId: string, withReplicaLag: boolean): Promise<MeteringSubscriptionRow | undefined> {
    const [row] = await this.txHost.replica.query<MeteringSubscriptionRow>(withReplicaLag ? subscriptionWithLagStatement(organizationId) : subscriptionStatement(organizationId));
    return row;
  }

  /**
   * Moves (or first sets) the organization's anchor, in one transaction that holds the row: the
   * subscription.updated event with the old and new anchor, and none when the anchor is the one it
   * has. The anchor as stored.
   */
  setAnchor(organizationId: string, anchorAt: Date, context: AuditContext): Promise<Date> {
    return this.txHost.withSqlTransaction(async () => {
      const [before] = await this.txHost.sql.query<Pick<Subscription, 'anchorAt'>>(Prisma.sql`
        SELECT anchor_at AS "anchorAt" FROM subscriptions WHERE organization_id = ${organizationId}::uuid ${RowLock.forUpdate}`);
      const [stored] = await this.txHost.sql.query<Pick<Subscription, 'anchorAt'>>(Prisma.sql`
        INSERT INTO subscriptions (id, organization_id, anchor_at) VALUES (${randomUUID()}::uuid, ${organizationId}::uuid, ${anchorAt})
        ON CONFLICT (organization_id) DO UPDATE SET anchor_at = EXCLUDED.anchor_at, updated_at = ${context.at}
        RETURNING anchor_at AS "anchorAt"`);
      if (before?.anchorAt.getTime() !== anchorAt.getTime()) {
        await this.txHost.sql.execute(
          this.audit.insert(context, {
            organizationId,
            action: QuotaAudit.SubscriptionUpdated,
            resourceId: organizationId,
            changes: { anchor_at: { old: before?.anchorAt.toISOString() ?? null, new: anchorAt.toISOString() } },
          }),
        );
      }
      return stored.anchorAt;
    });
  }
}
