import type { Pool } from 'pg';

const FRESH_FOR_MS = 5_000;

interface Snapshot {
  anchorAt: Date;
  updatedAt: Date;
  readAt: Date;
}

/** GET metering-policy: the subscription read at most once per organization every 5 s. */
export class MeteringPolicies {
  private readonly snapshots = new Map<string, Snapshot>();

  constructor(private readonly pool: Pool) {}

  async read(organizationId: string): Promise<string> {
    const now = new Date();
    let snapshot = this.snapshots.get(organizationId);
    if (snapshot === undefined || now.getTime() - snapshot.readAt.getTime() >= FRESH_FOR_MS) {
      const { rows } = await this.pool.query<{ anchor_at: Date; updated_at: Date }>({
        name: 'subscription',
        text: 'SELECT anchor_at, updated_at FROM subscriptions WHERE organization_id = $1',
        values: [organizationId],
      });
      if (rows.length === 0) throw new Error(`Organization ${organizationId} has no subscription`);
      snapshot = { anchorAt: rows[0].anchor_at, updatedAt: rows[0].updated_at, readAt: now };
      this.snapshots.set(organizationId, snapshot);
    }
    return JSON.stringify({
      cycle_mode: 'subscription-cycle',
      data_as_of: snapshot.readAt.toISOString(),
      data_status: 'fresh',
      next_reset_at: nextResetAfter(snapshot.anchorAt, now).toISOString(),
      updated_at: snapshot.updatedAt.toISOString(),
    });
  }
}

/**
 * The first monthly reset strictly after `now`: the anchor's day of month and time of day (UTC),
 * on the month's last day when the month is shorter, always counted from the anchor.
 */
export function nextResetAfter(anchor: Date, now: Date): Date {
  if (anchor > now) return anchor;
  const months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth();
  const reset = resetMonthsAfter(anchor, months);
  return reset > now ? reset : resetMonthsAfter(anchor, months + 1);
}

function resetMonthsAfter(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months; // Date.UTC carries months past December into the next year
  const lastDayOfMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDayOfMonth);
  return new Date(
    Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}
