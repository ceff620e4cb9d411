import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Metrics } from '../../common/metrics/metrics';
import { AppConfig } from '../../config/app-config';
import { isDatabaseUnavailable } from '../../database/database-unavailable';
import { DatabaseOutageLog } from '../../database/outage-log';
import { PrismaService } from '../../database/prisma.service';
import { CYCLE_MODE, type DataStatus, type MeteringPolicyDto } from './dto/metering-policy.dto';
import { nextResetAfter } from './subscription-cycle';

/** What was read from the database for one organization, and when. */
interface PolicySnapshot {
  anchorAt: Date;
  updatedAt: Date;
  dataAsOf: Date;
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

  constructor(
    private readonly prisma: PrismaService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly outageLog: DatabaseOutageLog,
    private readonly metrics: Metrics,
  ) {
    this.snapshots = new LRUCache({ max: config.METERING_CACHE_MAX_ENTRIES });
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
    const subscription = await this.prisma.subscription.findUnique({
      where: { organizationId },
      select: { anchorAt: true, updatedAt: true },
    });
    // Every organization is created with its subscription (AdminService.createOrganization).
    if (!subscription) throw new Error(`Organization ${organizationId} has no subscription`);
    return { ...subscription, dataAsOf: this.clock.now() };
  }

  private staleOrUnavailable(organizationId: string, cached: PolicySnapshot | undefined): MeteringPolicyDto {
    if (cached && this.ageMs(cached) < this.config.METERING_MAX_STALENESS_SECONDS * 1000) return this.toDto(cached, 'stale');
    if (cached) this.snapshots.delete(organizationId);
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The metering policy cannot be read: the database is unreachable. Retry later.');
  }

  private ageMs(snapshot: PolicySnapshot): number {
    return this.clock.now().getTime() - snapshot.dataAsOf.getTime();
  }

  /** next_reset_at is computed now, so even a cached or stale answer names the right reset. */
  private toDto(snapshot: PolicySnapshot, status: DataStatus): MeteringPolicyDto {
    return {
      cycle_mode: CYCLE_MODE,
      data_as_of: snapshot.dataAsOf.toISOString(),
      data_status: status,
      next_reset_at: nextResetAfter(snapshot.anchorAt, this.clock.now()).toISOString(),
      updated_at: snapshot.updatedAt.toISOString(),
    };
  }
}
