import { Injectable } from '@nestjs/common';
import { AuditStatements, sqlChanges, type AuditChanges, type AuditContext } from '../../common/audit/audit-event';
import type { KeysetPosition } from '../../common/pagination/page-token';
import { columnName } from '../../database/columns';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type ExpertSuite, type MarketItem } from '../../generated/prisma/client';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { ExpertSuitesAudit } from './expert-suites.audit';
import type { SuiteChanges } from './suite-changes';
import { PATCHED_COLUMNS, type PatchedColumn, type SuiteWrite } from './suite-patch';
import { statusesAllowedBefore } from './suite-status';

/**
 * Every column of a suite under the model's field names, and its market item's, as the mapper wants
 * them. Written out rather than built with columns(): its text is part of the PATCH's prepared
 * statement (docs/adr/0003-prepared-statements-per-connection.md); SuiteRow types it by the models.
 */
const SUITE_COLUMNS = Prisma.raw(`
  u.id, u.organization_id AS "organizationId", u.name, u.display_name AS "displayName", u.display_name_cn AS "displayNameCn",
  u.description, u.description_cn AS "descriptionCn", u.version, u.status, u.origin, u.source_type AS "sourceType",
  u.clients, u.commands, u.command_count AS "commandCount", u.skills, u.skill_count AS "skillCount", u.connectors,
  u.connector_refs AS "connectorRefs", u.connector_count AS "connectorCount", u.has_package AS "hasPackage",
  u.package_upload_id AS "packageUploadId", u.icon_url AS "iconUrl", u.icon_upload_id AS "iconUploadId",
  u.readme_content AS "readmeContent", u.readme_content_cn AS "readmeContentCn", u.revision,
  u.created_at AS "createdAt", u.updated_at AS "updatedAt",
  m.id AS "marketItemId", m.category_id AS "marketItemCategoryId", m.revision AS "marketItemRevision",
  m.updated_at AS "marketItemUpdatedAt"`);

type SuiteRow = Omit<ExpertSuite, 'lastChange'> & {
  marketItemId: MarketItem['id'] | null;
  marketItemCategoryId: MarketItem['categoryId'];
  marketItemRevision: MarketItem['revision'] | null;
  marketItemUpdatedAt: MarketItem['updatedAt'] | null;
};

/** The suite a one-statement PATCH wrote, and its revision in the statement's snapshot (see suiteUpdateStatement). */
export interface UpdatedSuite {
  suite: ExpertSuiteWithMarketItem;
  revisionBefore: bigint;
}

/** A suite and its market item (the enterprise market entry, which holds the category): every statement of both tables. */
@Injectable()
export class ExpertSuitesRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /** On the primary (its revision is the ETag a client's next write names); another organization's suite is as missing as one that never was. */
  async findById(organizationId: string, suiteId: string): Promise<ExpertSuiteWithMarketItem | undefined> {
    const [row] = await this.txHost.sql.query<SuiteRow>(suiteSelectStatement(organizationId, suiteId));
    return row && suiteRowToModel(row);
  }

  /**
   * One page of an organization's suites, by (created_at, id), after `position` (created_at in epoch
   * milliseconds, exact: the column keeps milliseconds), filtered by status and category: one
   * indexed statement on the read replica when there is one.
   */
  async listPage(organizationId: string, filters: { status?: string; category_id?: string }, position: KeysetPosition | undefined, limit: number): Promise<ExpertSuiteWithMarketItem[]> {
    const rows = await this.txHost.replica.query<SuiteRow>(suitePageStatement(organizationId, filters, position, limit));
    return rows.map(suiteRowToModel);
  }

  /** Locks the suite's row until the caller's transaction ends. */
  async lockForUpdate(organizationId: string, suiteId: string): Promise<void> {
    await this.txHost.sql.query(Prisma.sql`SELECT id FROM expert_suites WHERE id = ${suiteId}::uuid AND organization_id = ${organizationId}::uuid ${RowLock.forUpdate}`);
  }

  /**
   * The PATCH of the suite's own fields as one statement (suiteUpdateStatement), with its audit
   * event. Undefined when it wrote nothing: a rule said no, nothing would change, there is no such
   * suite, or `writes` is empty.
   */
  async updateInOneStatement(
    organizationId: string,
    suiteId: string,
    writes: readonly SuiteWrite[],
    expectedRevision: number | undefined,
    context: AuditContext,
  ): Promise<UpdatedSuite | undefined> {
    const statement = suiteUpdateStatement(organizationId, suiteId, writes, expectedRevision, context, this.audit);
    if (!statement) return undefined;
    const [updated] = await this.txHost.sql.query<SuiteRow & { revisionBefore: bigint }>(statement);
    if (!updated) return undefined;
    const { revisionBefore, ...row } = updated;
    return { suite: suiteRowToModel(row), revisionBefore };
  }

  /**
   * Compare-and-set on the revision that was read: writes `changes` (and clears last_change, which
   * only the one statement writes, so that it never describes another revision) as the next
   * revision. False when the suite is no longer at `suite.revision`.
   */
  async updateColumns(suite: Pick<ExpertSuite, 'id' | 'organizationId' | 'revision'>, changes: SuiteChanges, at: Date): Promise<boolean> {
    const sets = (Object.entries(changes) as [PatchedColumn, unknown][]).map(([column, value]) => Prisma.sql`${COLUMN_SQL[column].name} = ${sqlValue(column, value)}`);
    sets.push(Prisma.sql`last_change = NULL, revision = revision + 1, updated_at = ${at}`);
    const count = await this.txHost.sql.execute(Prisma.sql`
      UPDATE expert_suites SET ${Prisma.join(sets)}
      WHERE id = ${suite.id}::uuid AND organization_id = ${suite.organizationId}::uuid AND revision = ${suite.revision}`);
    return count === 1;
  }

  /** The `expert_suite.updated` event of a change made in the caller's transaction. */
  async insertUpdatedEvent(context: AuditContext, suite: Pick<ExpertSuite, 'id' | 'organizationId' | 'revision'>, changes: AuditChanges): Promise<void> {
    await this.txHost.sql.execute(
      this.audit.insert(context, {
        organizationId: suite.organizationId,
        action: ExpertSuitesAudit.SuiteUpdated,
        resourceId: suite.id,
        revisionBefore: suite.revision,
        revisionAfter: suite.revision + 1n,
        changes,
      }),
    );
  }

  /** The market item as committed (read again after a one-statement PATCH waited for another writer). */
  async findMarketItem(suiteId: string): Promise<MarketItem | undefined> {
    const [marketItem] = await this.txHost.sql.query<MarketItem>(Prisma.sql`
      SELECT id, organization_id AS "organizationId", suite_id AS "suiteId", category_id AS "categoryId", revision, updated_at AS "updatedAt"
      FROM market_items WHERE suite_id = ${suiteId}::uuid`);
    return marketItem;
  }

  /** The market item of a suite that has none yet, at revision 1. */
  async insertMarketItem(suite: Pick<ExpertSuite, 'id' | 'organizationId'>, categoryId: string | null, at: Date): Promise<void> {
    await this.txHost.sql.execute(Prisma.sql`
      INSERT INTO market_items (id, organization_id, suite_id, category_id, updated_at)
      VALUES (gen_random_uuid(), ${suite.organizationId}::uuid, ${suite.id}::uuid, ${categoryId}::uuid, ${at})`);
  }

  /** Compare-and-set on the market item's revision that was read; false when it is no longer at it. */
  async updateMarketItemCategory(marketItem: Pick<MarketItem, 'id' | 'organizationId' | 'revision'>, categoryId: string | null, at: Date): Promise<boolean> {
    const count = await this.txHost.sql.execute(Prisma.sql`
      UPDATE market_items SET category_id = ${categoryId}::uuid, revision = revision + 1, updated_at = ${at}
      WHERE id = ${marketItem.id}::uuid AND organization_id = ${marketItem.organizationId}::uuid AND revision = ${marketItem.revision}`);
    return count === 1;
  }

  /**
   * A draft enterprise suite without a package, named `name` (its display name too), with its
   * market entry and its `expert_suite.created` event, in one statement (the admin CLI's).
   */
  async insert(organizationId: string, name: string, context: AuditContext): Promise<ExpertSuiteWithMarketItem> {
    const [row] = await this.txHost.sql.query<SuiteRow>(Prisma.sql`
      WITH u AS (
        INSERT INTO expert_suites (id, organization_id, name, display_name, created_at, updated_at)
        VALUES (gen_random_uuid(), ${organizationId}::uuid, ${name}, ${name}, ${context.at}, ${context.at})
        RETURNING *),
      m AS (
        INSERT INTO market_items (id, organization_id, suite_id, updated_at)
        SELECT gen_random_uuid(), u.organization_id, u.id, u.updated_at FROM u
        RETURNING *),
      ${this.audit.insertFrom(context, Prisma.sql`u`, {
        organizationId,
        action: ExpertSuitesAudit.SuiteCreated,
        resourceId: Prisma.sql`u.id::text`,
        revisionAfter: Prisma.sql`u.revision`,
        changes: CREATED_SUITE_CHANGES,
      })}
      SELECT ${SUITE_COLUMNS} FROM u JOIN m ON m.suite_id = u.id`);
    return suiteRowToModel(row);
  }
}

const CREATED_SUITE_CHANGES = sqlChanges({
  name: { old: null, new: Prisma.sql`u.name` },
  display_name: { old: null, new: Prisma.sql`u.display_name` },
  status: { old: null, new: Prisma.sql`u.status` },
});

function suiteRowToModel(row: SuiteRow): ExpertSuiteWithMarketItem {
  const { marketItemId, marketItemCategoryId, marketItemRevision, marketItemUpdatedAt, ...suite } = row;
  const marketItem =
    marketItemId === null
      ? null
      : { id: marketItemId, organizationId: suite.organizationId, suiteId: suite.id, categoryId: marketItemCategoryId, revision: marketItemRevision!, updatedAt: marketItemUpdatedAt! };
  return { ...suite, marketItem };
}

/** A value for `column`, cast to its type (PATCHED_COLUMNS); NULL as a constant, not a parameter. */
function sqlValue(column: PatchedColumn, value: unknown): Prisma.Sql {
  const { type } = PATCHED_COLUMNS[column];
  if (value === null) return Prisma.raw(`NULL::${type}`);
  switch (type) {
    case 'text':
      return Prisma.sql`${value}::text`;
    case 'jsonb':
      return Prisma.sql`${JSON.stringify(value)}::jsonb`;
    case 'bigint':
      return Prisma.sql`${value}::bigint`;
    case 'uuid':
      return Prisma.sql`${value}::uuid`;
    case 'boolean':
      return Prisma.sql`${value}::boolean`;
  }
}

/** Each patched column's name in SQL, and as the row being replaced (`s.<column>`) in the one statement. */
const COLUMN_SQL = Object.fromEntries(
  Object.keys(PATCHED_COLUMNS).map((field) => [field, { name: Prisma.raw(columnName(field)), old: Prisma.raw(`s.${columnName(field)}`) }]),
) as Record<PatchedColumn, { name: Prisma.Sql; old: Prisma.Sql }>;

/**
 * The whole PATCH as one statement: the compare-and-set on `expected_revision`, the status
 * transition guard, the package's count rule and "a value equal to the stored one is not a
 * change" all sit in the WHERE clause, so the row is changed (revision + 1) only when every rule
 * holds and something differs, and is locked only for this statement. Each rule of `writes`
 * (suite-patch.ts) becomes its part of the SET list, the guards and the change test here, and the
 * same checks in code in suite-changes.ts. RETURNING gives the
 * response row with its market item, and `revisionBefore` the revision in the statement's
 * snapshot: when it is not one less, the UPDATE waited for another writer and re-read the suite
 * row, but the market item was still read in the older snapshot (see UpdatedSuite). No row back means nothing was written: the caller reads the
 * suite to tell which rule said no (or that nothing changed). Undefined when the body names
 * nothing to change.
 *
 * The same statement writes the `expert_suite.updated` audit event of the row it changed, with the
 * old and new value of each column that differs. The SET list computes them into `last_change`:
 * column references there see the row version being replaced, which after a wait for another
 * writer is the one that writer committed (not this statement's older snapshot), and RETURNING
 * hands the column to the audit CTE. RETURNING alone shows only the new values before PostgreSQL
 * 18's RETURNING OLD, and a locking read of the old row before the UPDATE cost throughput
 * (docs/adr/0010-audit-old-values-in-last-change.md).
 *
 * The statement's text depends only on which fields are sent (and whether `clients` is null): each
 * combination is one prepared statement.
 */
function suiteUpdateStatement(
  organizationId: string,
  suiteId: string,
  writes: readonly SuiteWrite[],
  expectedRevision: number | undefined,
  audit: AuditContext,
  auditStatements: AuditStatements,
): Prisma.Sql | undefined {
  const now = audit.at;
  const sets: Prisma.Sql[] = [];
  const differs: Prisma.Sql[] = [];
  const guards: Prisma.Sql[] = [];
  // Each audited column under its wire name: the row's value before (s.<column> in the SET list) and the one set.
  const audited: Record<string, { old: Prisma.Sql; new: Prisma.Sql }> = {};
  const set = (field: PatchedColumn, value: Prisma.Sql) => {
    sets.push(Prisma.sql`${COLUMN_SQL[field].name} = ${value}`);
    const wireName = PATCHED_COLUMNS[field].audit;
    if (wireName !== null) audited[wireName] = { old: COLUMN_SQL[field].old, new: value };
  };
  const setIfDifferent = (field: PatchedColumn, value: Prisma.Sql) => {
    set(field, value);
    differs.push(Prisma.sql`${COLUMN_SQL[field].old} IS DISTINCT FROM ${value}`);
  };

  for (const write of writes) {
    switch (write.rule) {
      case 'value':
        setIfDifferent(write.column, sqlValue(write.column, write.value));
        break;
      case 'follows':
        set(write.column, sqlValue(write.column, write.value));
        break;
      case 'clears':
        set(write.column, sqlValue(write.column, null));
        differs.push(Prisma.sql`${COLUMN_SQL[write.column].old} IS NOT NULL`);
        break;
      case 'package count': {
        // With a package the counts are the package's: a count sent must equal it and changes nothing.
        const stored = COLUMN_SQL[write.column].old;
        set(write.column, Prisma.sql`CASE WHEN s.has_package THEN ${stored} ELSE ${write.count}::bigint END`);
        differs.push(Prisma.sql`(NOT s.has_package AND ${stored} <> ${write.count})`);
        guards.push(Prisma.sql`(NOT s.has_package OR ${stored} = ${write.count})`);
        break;
      }
      case 'status':
        setIfDifferent('status', sqlValue('status', write.status));
        guards.push(Prisma.sql`s.status IN (${Prisma.join(statusesAllowedBefore(write.status))})`);
        if (write.status === 'published') guards.push(Prisma.sql`(s.status = 'published' OR s.has_package)`);
        break;
    }
  }
  if (sets.length === 0) return undefined;
  if (expectedRevision !== undefined) guards.push(Prisma.sql`s.revision = ${expectedRevision}`);

  return Prisma.sql`
    WITH u AS (
      UPDATE expert_suites AS s
      SET ${Prisma.join(sets)}, last_change = ${sqlChanges(audited, { onlyChanged: true })}, revision = s.revision + 1, updated_at = ${now}
      WHERE s.id = ${suiteId}::uuid AND s.organization_id = ${organizationId}::uuid
        ${guards.length > 0 ? Prisma.sql`AND ${Prisma.join(guards, ' AND ')}` : Prisma.empty}
        AND (${Prisma.join(differs, ' OR ')})
      RETURNING s.*),
    ${auditStatements.insertFrom(audit, Prisma.sql`u`, {
      organizationId,
      action: ExpertSuitesAudit.SuiteUpdated,
      resourceId: Prisma.sql`u.id::text`,
      revisionBefore: Prisma.sql`u.revision - 1`,
      revisionAfter: Prisma.sql`u.revision`,
      changes: Prisma.sql`u.last_change`,
    })}
    SELECT ${SUITE_COLUMNS}, (SELECT e.revision FROM expert_suites AS e WHERE e.id = u.id) AS "revisionBefore"
    FROM u LEFT JOIN market_items AS m ON m.suite_id = u.id`;
}

/** The suite with its market item. */
function suiteSelectStatement(organizationId: string, suiteId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${SUITE_COLUMNS} FROM expert_suites AS u LEFT JOIN market_items AS m ON m.suite_id = u.id
    WHERE u.id = ${suiteId}::uuid AND u.organization_id = ${organizationId}::uuid`;
}

function suitePageStatement(
  organizationId: string,
  filters: { status?: string; category_id?: string },
  position: KeysetPosition | undefined,
  limit: number,
): Prisma.Sql {
  const conditions = [Prisma.sql`u.organization_id = ${organizationId}::uuid`];
  if (filters.status !== undefined) conditions.push(Prisma.sql`u.status = ${filters.status}`);
  if (filters.category_id !== undefined) conditions.push(Prisma.sql`m.category_id = ${filters.category_id}::uuid`);
  if (position) {
    conditions.push(Prisma.sql`(u.created_at, u.id) > (TIMESTAMPTZ 'epoch' + ${position.after}::bigint * INTERVAL '1 millisecond', ${position.id}::uuid)`);
  }
  return Prisma.sql`
    SELECT ${SUITE_COLUMNS} FROM expert_suites AS u LEFT JOIN market_items AS m ON m.suite_id = u.id
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY u.created_at, u.id LIMIT ${limit}`;
}
