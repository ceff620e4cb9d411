import { randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { TransactionHost } from '../src/database/transaction-host';
import { SubscriptionsRepository } from '../src/modules/quota/subscriptions.repository';
import { useTestDatabase } from './support/test-app';

/** SubscriptionsRepository on the test database, without HTTP: the metering policy's read and the CLI's anchor. */
describe('SubscriptionsRepository', () => {
  const fixture = useTestDatabase();
  let subscriptions: SubscriptionsRepository;

  beforeAll(() => {
    subscriptions = new SubscriptionsRepository(new TransactionHost(fixture.database.sql), new AuditStatements('off'));
  });

  it("reads the organization's anchor and last change, and on the primary no replica lag", async () => {
    const { id } = await fixture.admin.createOrganization('Metered');
    const { anchor_at } = await fixture.admin.setSubscriptionAnchor(id, '2026-01-31T09:00:00Z');
    const { updatedAt } = await fixture.database.prisma.subscription.findUniqueOrThrow({ where: { organizationId: id } });

    expect(await subscriptions.findForMetering(id, false)).toEqual({ anchorAt: new Date(anchor_at), updatedAt });
    expect(await subscriptions.findForMetering(id, true)).toEqual({ anchorAt: new Date(anchor_at), updatedAt, behindMs: null });
  });

  it('reads nothing for an organization without a subscription', async () => {
    expect(await subscriptions.findForMetering(randomUUID(), false)).toBeUndefined();
    expect(await subscriptions.findForMetering(randomUUID(), true)).toBeUndefined();
  });

  it('moves the anchor with one subscription.updated event holding the old and new anchor, and writes none when it stays', async () => {
    const { id } = await fixture.admin.createOrganization('Anchored');
    const [{ anchor_at: first }] = await fixture.database.prisma.$queryRaw<{ anchor_at: Date }[]>`SELECT anchor_at FROM subscriptions WHERE organization_id = ${id}::uuid`;
    const moved = new Date('2026-03-31T10:00:00Z');
    expect(await subscriptions.setAnchor(id, moved, { actor: CLI_ACTOR, at: new Date() })).toEqual(moved);
    expect(await subscriptions.setAnchor(id, moved, { actor: CLI_ACTOR, at: new Date() })).toEqual(moved);
    const events = await fixture.database.prisma.$queryRaw<{ changes: unknown }[]>`
      SELECT changes FROM audit_events WHERE organization_id = ${id}::uuid AND action = 'subscription.updated'`;
    expect(events).toEqual([{ changes: { anchor_at: { old: first.toISOString(), new: moved.toISOString() } } }]);
  });

  it('sets the anchor of an organization that had no subscription, as a change from none', async () => {
    const { id } = await fixture.admin.createOrganization('Unsubscribed');
    await fixture.database.prisma.$executeRaw`DELETE FROM subscriptions WHERE organization_id = ${id}::uuid`;
    const anchor = new Date('2026-02-01T00:00:00Z');
    expect(await subscriptions.setAnchor(id, anchor, { actor: CLI_ACTOR, at: new Date() })).toEqual(anchor);
    expect(await subscriptions.findForMetering(id, false)).toEqual(expect.objectContaining({ anchorAt: anchor }));
    const [event] = await fixture.database.prisma.$queryRaw<{ changes: unknown }[]>`
      SELECT changes FROM audit_events WHERE organization_id = ${id}::uuid AND action = 'subscription.updated'`;
    expect(event.changes).toEqual({ anchor_at: { old: null, new: anchor.toISOString() } });
  });
});
