import { randomUUID } from 'node:crypto';
import type { PrismaService } from '../src/database/prisma.service';
import { TransactionHost } from '../src/database/transaction-host';
import { SubscriptionsRepository } from '../src/modules/quota/subscriptions.repository';
import { useTestDatabase } from './support/test-app';

/** SubscriptionsRepository on the test database, without HTTP: the metering policy's read. */
describe('SubscriptionsRepository', () => {
  const fixture = useTestDatabase();
  let subscriptions: SubscriptionsRepository;

  beforeAll(() => {
    subscriptions = new SubscriptionsRepository(new TransactionHost(fixture.database.prisma as PrismaService, fixture.database.sql));
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
});
