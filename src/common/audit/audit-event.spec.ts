import { Prisma } from '../../generated/prisma/client';
import { CLI_ACTOR, type AuditActor } from './audit-actor';
import { AuditStatements, type AuditEventInput } from './audit-event';
import { DirectoryAudit } from '../../modules/directory/directory.audit';

const apiKey: AuditActor = { type: 'api_key', apiKeyId: '0193a8f2-6c1e-4b7e-9d43-1f2a3b4c5d6e', requestId: 'req-1' };
const event = (resourceId: string): AuditEventInput => ({
  organizationId: '0193a8f2-6c1e-4b7e-9d43-1f2a3b4c5d6f',
  action: DirectoryAudit.DepartmentCreated,
  resourceId,
  changes: { name: { old: null, new: resourceId } },
});
const fromChanged: AuditEventInput = { organizationId: Prisma.sql`changed.organization_id`, action: DirectoryAudit.DepartmentCreated, resourceId: Prisma.sql`changed.id::text`, changes: {} };

describe('AuditStatements', () => {
  const on = new AuditStatements('on');
  const off = new AuditStatements('off');

  it('builds the same statement text for every event of a kind, so that it is prepared once per connection', () => {
    const first = on.insert({ actor: apiKey, at: new Date(0) }, event('a'));
    const second = on.insert({ actor: CLI_ACTOR, at: new Date() }, event('b'));
    expect(second.text).toBe(first.text);
    expect(second.values).not.toEqual(first.values);
    const source = Prisma.sql`changed`;
    expect(on.insertFrom({ actor: CLI_ACTOR, at: new Date() }, source, fromChanged).text).toBe(on.insertFrom({ actor: apiKey, at: new Date(0) }, source, fromChanged).text);
  });

  it('queues the deliveries in the same statement, and wakes the workers only with notifications on', () => {
    for (const statements of [on.insert({ actor: CLI_ACTOR, at: new Date() }, event('a')), on.insertFrom({ actor: CLI_ACTOR, at: new Date() }, Prisma.sql`changed`, fromChanged)]) {
      expect(statements.text).toMatch(/audit_event AS \(INSERT INTO audit_events .* RETURNING id, organization_id, action\),\s+audit_delivery AS \(\s+INSERT INTO webhook_deliveries/s);
      expect(statements.text).toContain(`RETURNING pg_notify('webhook_deliveries', '')`);
    }
    for (const statements of [off.insert({ actor: CLI_ACTOR, at: new Date() }, event('a')), off.insertFrom({ actor: CLI_ACTOR, at: new Date() }, Prisma.sql`changed`, fromChanged)]) {
      expect(statements.text).toContain('INSERT INTO webhook_deliveries');
      expect(statements.text).not.toContain('pg_notify');
    }
  });

  it('matches the event against the endpoints the statement leaves when given them', () => {
    const endpoints = 'SELECT id, organization_id, event_types FROM webhook_endpoints UNION ALL SELECT id, organization_id, event_types FROM endpoint';
    expect(on.insertFrom({ actor: CLI_ACTOR, at: new Date() }, Prisma.sql`endpoint`, fromChanged, endpoints).text).toContain(`JOIN (${endpoints}) AS target`);
    expect(on.insertFrom({ actor: CLI_ACTOR, at: new Date() }, Prisma.sql`changed`, fromChanged).text).toContain('JOIN webhook_endpoints AS target');
  });
});
