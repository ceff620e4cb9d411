import { randomUUID } from 'node:crypto';
import { SqlHost } from '../database/sql-host';
import { Prisma, type Organization } from '../generated/prisma/client';

export type OrganizationListingRow = Pick<Organization, 'id' | 'name' | 'createdAt'> & { activeApiKeys: number };

/** The organizations table: written and listed by the admin CLI and the demo bootstrap only. */
export class OrganizationsRepository {
  constructor(private readonly txHost: SqlHost) {}

  /** One statement: the organization and its subscription, anchored at `anchorAt`. */
  async insertWithSubscription(name: string, anchorAt: Date): Promise<Pick<Organization, 'id' | 'name'>> {
    const [row] = await this.txHost.sql.query<Pick<Organization, 'id' | 'name'>>(Prisma.sql`
      WITH organization AS (
        INSERT INTO organizations (id, name) VALUES (${randomUUID()}::uuid, ${name}) RETURNING id, name
      ), subscription AS (
        INSERT INTO subscriptions (id, organization_id, anchor_at) SELECT ${randomUUID()}::uuid, id, ${anchorAt} FROM organization
      )
      SELECT id, name FROM organization`);
    return row;
  }

  /** Every organization, oldest first, with how many keys it holds that are not revoked. */
  listWithActiveKeyCounts(): Promise<OrganizationListingRow[]> {
    return this.txHost.sql.query<OrganizationListingRow>(Prisma.sql`
      SELECT o.id, o.name, o.created_at AS "createdAt",
        (SELECT count(*)::int FROM api_keys k WHERE k.organization_id = o.id AND k.revoked_at IS NULL) AS "activeApiKeys"
      FROM organizations o ORDER BY o.created_at, o.id`);
  }

  /** The oldest organization of this name. */
  async findOldestNamed(name: string): Promise<string | undefined> {
    const [row] = await this.txHost.sql.query<Pick<Organization, 'id'>>(Prisma.sql`
      SELECT id FROM organizations WHERE name = ${name} ORDER BY created_at, id LIMIT 1`);
    return row?.id;
  }

  async any(): Promise<boolean> {
    const rows = await this.txHost.sql.query<Pick<Organization, 'id'>>(Prisma.sql`SELECT id FROM organizations LIMIT 1`);
    return rows.length === 1;
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.txHost.sql.query<Pick<Organization, 'id'>>(Prisma.sql`SELECT id FROM organizations WHERE id = ${id}::uuid`);
    return rows.length === 1;
  }
}
