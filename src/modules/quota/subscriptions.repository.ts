import { Injectable } from '@nestjs/common';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Subscription } from '../../generated/prisma/client';

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
  constructor(private readonly txHost: SqlHost) {}

  /**
   * On the read replica when there is one (the policy is cached for METERING_CACHE_TTL_MS anyway);
   * `withReplicaLag` also reads how far the replica's data is behind (`behindMs`).
   */
  async findForMetering(organizationId: string, withReplicaLag: boolean): Promise<MeteringSubscriptionRow | undefined> {
    const [row] = await this.txHost.replica.query<MeteringSubscriptionRow>(withReplicaLag ? subscriptionWithLagStatement(organizationId) : subscriptionStatement(organizationId));
    return row;
  }
}
