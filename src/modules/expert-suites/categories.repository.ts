import { Injectable } from '@nestjs/common';
import { AuditStatements, sqlChanges, type AuditContext } from '../../common/audit/audit-event';
import { columns, type RowOf } from '../../database/columns';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type Category } from '../../generated/prisma/client';
import { ExpertSuitesAudit } from './expert-suites.audit';

const CATEGORY = columns<Category>()('id', 'name');
export type CategoryRow = RowOf<typeof CATEGORY>;

const CREATED_CATEGORY_CHANGES = sqlChanges({ name: { old: null, new: Prisma.sql`changed.name` } });

/** The categories of the enterprise market, which a suite's market item names. */
@Injectable()
export class CategoriesRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /** Another organization's category is as missing as one that never was. */
  async exists(organizationId: string, categoryId: string): Promise<boolean> {
    const rows = await this.txHost.sql.query<Pick<Category, 'id'>>(Prisma.sql`
      SELECT id FROM categories WHERE id = ${categoryId}::uuid AND organization_id = ${organizationId}::uuid`);
    return rows.length > 0;
  }

  /** The organization's category of that name, if any (the demo finds its own by name). */
  async findByName(organizationId: string, name: string): Promise<CategoryRow | undefined> {
    const [row] = await this.txHost.sql.query<CategoryRow>(Prisma.sql`
      SELECT ${CATEGORY.sql} FROM categories WHERE organization_id = ${organizationId}::uuid AND name = ${name}`);
    return row;
  }

  /**
   * A category with its `category.created` event, in one statement (the admin CLI's). Undefined when
   * the organization already has a category of that name (categories_organization_id_name_key): then
   * nothing is written.
   */
  async insert(organizationId: string, name: string, context: AuditContext): Promise<CategoryRow | undefined> {
    const [row] = await this.txHost.sql.query<CategoryRow>(Prisma.sql`
      WITH changed AS (
        INSERT INTO categories (id, organization_id, name, created_at)
        VALUES (gen_random_uuid(), ${organizationId}::uuid, ${name}, ${context.at})
        ON CONFLICT (organization_id, name) DO NOTHING
        RETURNING id, name),
      ${this.audit.insertFrom(context, Prisma.sql`changed`, {
        organizationId,
        action: ExpertSuitesAudit.CategoryCreated,
        resourceId: Prisma.sql`changed.id::text`,
        changes: CREATED_CATEGORY_CHANGES,
      })}
      SELECT ${CATEGORY.sql} FROM changed`);
    return row;
  }
}
