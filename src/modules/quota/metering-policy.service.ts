import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Metrics } from '../../common/metrics/metrics';
import { AppConfig } from '../../config/app-config';
import { isDatabaseUnavailable } from '../../database/database-unavailable';
import { DatabaseOutageLog } from '../../database/outage-log';
import { CYCLE_MODE, type DataStatus, type MeteringPolicyDto } from './dto/metering-policy.dto';
import { nextResetAfter } from './subscription-cycle';
import { SubscriptionsRepository } from './subscriptions.repository';

/** What was read from the database for one organization, and when, with its times as answered. */
interface PolicySnapshot {
  anchorAt: Date;
  dataAsOf: Date;
  dataAsOfText: string;
  updatedAtText: string;
  /** The next reset as last computed: the first reset after every instant from `from` until `at`. */
  nextReset?: { from: number; at: number; text: string };
}

/**
 * Reads an organization's metering policy through a small per-organization cache: a read
 * younger than METERING_CACHE_TTL_MS is answered from memory as fresh; an older one is kept as a
 * fallback for when the database is unreachable (stale, up to METERING_MAX_STALENESS_SECONDS).
 */
@Injectable()
export class MeteringPolicyService {
  // Keyed by organization id only, so one organization's policy can never answer another's read.
  private readonly snapshots: LRUCache<string, PolicySnapshot>;
  /** With a read replica, data_as_of is moved back by how far the replica's data is behind. */
  private readonly replicaLag: boolean;

  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly outageLog: DatabaseOutageLog,
    private readonly metrics: Metrics,
  ) {
    this.snapshots = new LRUCache({ max: config.METERING_CACHE_MAX_ENTRIES });
    this.replicaLag = config.DATABASE_REPLICA_URL !== undefined;
  }

  async read(organizationId: string): Promise<MeteringPolicyDto> {
    const cached = this.snapshots.get(organizationId);
    const fresh = cached !== undefined && this.ageMs(cached) < this.config.METERING_CACHE_TTL_MS;
    this.metrics.meteringPolicyCacheLookup(fresh);
    if (fresh) return this.toDto(cached, 'fresh');

    let snapshot: PolicySnapshot;
    try {
      snapshot = await this.load(organizationId);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.outageLog.unavailable(error instanceof Error ? error.message : String(error));
      return this.staleOrUnavailable(organizationId, cached);
    }
    this.outageLog.available();
    this.snapshots.set(organizationId, snapshot);
    return this.toDto(snapshot, 'fresh');
  }

  private async load(organizationId: string): Promise<PolicySnapshot> {
    const subscription = await this.subscriptions.findForMetering(organizationId, this.replicaLag);
    // Every organization is created with its subscription (AdminService.createOrganization).
    if (!subscription) throw new Error(`Organization ${organizationId} has no subscription`);
    const dataAsOf = new Date(this.clock.now().getTime() - (subscription.behindMs ?? 0));
    return { anchorAt: subscription.anchorAt, dataAsOf, dataAsOfText: dataAsOf.toISOString(), updatedAtText: subscription.updatedAt.toISOString() };
  }

  private staleOrUnavailable(organizationId: string, cached: PolicySnapshot | undefined): MeteringPolicyDto {
    if (cached && this.ageMs(cached) < this.config.METERING_MAX_STALENESS_SECONDS * 1000) return this.toDto(cached, 'stale');
    if (cached) this.snapshots.delete(organizationId);
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The metering policy cannot be read: the database is unreachable. Retry later.');
  }

  private ageMs(snapshot: PolicySnapshot): number {
    return this.clock.now().getTime() - snapshot.dataAsOf.getTime();
  }

  /** next_reset_at is the first reset after now, so even a cached or stale answer names the right reset. */
  private toDto(snapshot: PolicySnapshot, status: DataStatus): MeteringPolicyDto {
    return {
      cycle_mode: CYCLE_MODE,
      data_as_of: snapshot.dataAsOfText,
      data_status: status,
      next_reset_at: this.nextResetText(snapshot),
      updated_at: snapshot.updatedAtText,
    };
  }

  // A cached policy is answered thousands of times before its next reset: computed (and written
  // as text) once for the stretch of time it holds for, not on every answer.
  private nextResetText(snapshot: PolicySnapshot): string {
    const now = this.clock.now().getTime();
    const known = snapshot.nextReset;
    if (known && known.from <= now && now < known.at) return known.text;
    const at = nextResetAfter(snapshot.anchorAt, new Date(now));
    snapshot.nextReset = { from: now, at: at.getTime(), text: at.toISOString() };
    return snapshot.nextReset.text;
  }
}
