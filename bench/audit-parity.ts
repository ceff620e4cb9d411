import { withClient, type Fixture } from './databases';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// One endpoint takes every action and one an action no probe writes: each event queues exactly one delivery.
const PARITY_ENDPOINTS = [
  { url: 'https://parity-every-action.invalid/hook', eventTypes: ['*'] },
  { url: 'https://parity-other-action.invalid/hook', eventTypes: ['category.created'] },
];

interface EventRow {
  id: string;
  occurred_at: Date;
  action: string;
  resource_type: string;
  resource_id: string;
  actor_type: string;
  revision_before: string | null;
  revision_after: string | null;
  changes: unknown;
  deliveries: string;
}

/**
 * Webhook endpoints of the main organization, so that the parity probes' writes queue deliveries
 * on both sides (the load runs without any: removeParityEndpoints drops them and their deliveries).
 * Backed off for an hour, so that the service's delivery worker never attempts them.
 */
export async function addParityEndpoints(databaseUrl: string, fixture: Fixture): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    for (const endpoint of PARITY_ENDPOINTS) {
      await client.query(
        `INSERT INTO webhook_endpoints (id, organization_id, url, event_types, secret, backoff_until) VALUES (gen_random_uuid(), $1, $2, $3, 'whsec_parity', now() + interval '1 hour')`,
        [fixture.main.organizationId, endpoint.url, endpoint.eventTypes],
      );
    }
  });
}

export async function removeParityEndpoints(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, (client) => client.query('DELETE FROM webhook_endpoints WHERE url = ANY ($1)', [PARITY_ENDPOINTS.map((endpoint) => endpoint.url)]));
}

/**
 * The audit events both sides wrote, with their deliveries, compared as sets: action, resource,
 * actor type, revisions, changes and the number of deliveries must agree. Event and key ids,
 * times and request ids differ by nature, as do the ids of resources each side created (the
 * fixture's ids are compared). Also checks on each side that an event id's time is its occurred_at.
 */
export async function auditTrailDifferences(databaseUrls: { service: string; lean: string }, fixture: Fixture): Promise<string[]> {
  const knownIds = new Set([fixture.main.organizationId, ...fixture.suiteIds, ...fixture.departmentIds, ...fixture.userIds]);
  const differences: string[] = [];
  const events: Record<string, string[]> = {};
  for (const side of ['service', 'lean'] as const) {
    const rows = await readEvents(databaseUrls[side]);
    for (const row of rows) {
      if (uuidV7Millis(row.id) !== row.occurred_at.getTime()) differences.push(`${side}: audit event ${row.action}: its id's time is not its occurred_at`);
    }
    events[side] = rows.map((row) => comparable(row, knownIds)).sort();
  }
  if (events.service.length === 0) differences.push('audit events: the service wrote none during the probes');
  for (const [side, other] of [['service', 'lean'], ['lean', 'service']] as const) {
    const unmatched = [...events[other]];
    for (const event of events[side]) {
      const match = unmatched.indexOf(event);
      if (match === -1) differences.push(`audit events: only the ${side} wrote ${event}`);
      else unmatched.splice(match, 1);
    }
  }
  return differences;
}

async function readEvents(databaseUrl: string): Promise<EventRow[]> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<EventRow>(`
      SELECT e.id, e.occurred_at, e.action, e.resource_type, e.resource_id, e.actor_type, e.revision_before, e.revision_after, e.changes,
        (SELECT count(*) FROM webhook_deliveries d WHERE d.organization_id = e.organization_id AND d.event_id = e.id) AS deliveries
      FROM audit_events e ORDER BY e.id`);
    return rows;
  });
}

/** The event as text without what differs by nature: uuids other than the fixture's read `<new id>`. */
function comparable(row: EventRow, knownIds: Set<string>): string {
  const { id: _id, occurred_at: _at, ...event } = row;
  return JSON.stringify(event, (_key, value: unknown) => (typeof value === 'string' && UUID.test(value) && !knownIds.has(value) ? '<new id>' : value));
}

function uuidV7Millis(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
