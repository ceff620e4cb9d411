import { Prisma } from '../../generated/prisma/client';
import type { ConnectorRefInputDto, UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { statusesAllowedBefore } from './suite-status';
import type { KeysetPosition, SortValueRange } from '../../common/pagination/page-token';
import { sqlChanges, type AuditContext, type AuditStatements } from '../../common/audit/audit-event';
import { ExpertSuitesAudit } from './expert-suites.audit';

/** The fields a PATCH can only apply after reading other records (uploads, categories, the market item). */
const FIELDS_NEEDING_READS = ['upload_id', 'icon_upload_id', 'category_id', 'clear_category', 'expected_market_item_revision'] as const;

/** True when the PATCH can be one compare-and-set UPDATE of the suite row, with no read before it. */
export function fitsOneStatement(body: UpdateExpertSuiteDto): boolean {
  return FIELDS_NEEDING_READS.every((field) => body[field] === undefined);
}

/** Every column of a suite under the model's field names, and its market item's, as the mapper wants them. */
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

export type SuiteRow = Omit<ExpertSuiteWithMarketItem, 'marketItem'> & {
  marketItemId: string | null;
  marketItemCategoryId: string | null;
  marketItemRevision: bigint | null;
  marketItemUpdatedAt: Date | null;
};

export type UpdatedSuiteRow = SuiteRow & { revisionBefore: bigint };

export function suiteRowToModel(row: SuiteRow): ExpertSuiteWithMarketItem {
  const { marketItemId, marketItemCategoryId, marketItemRevision, marketItemUpdatedAt, ...suite } = row;
  const marketItem =
    marketItemId === null
      ? null
      : { id: marketItemId, organizationId: suite.organizationId, suiteId: suite.id, categoryId: marketItemCategoryId, revision: marketItemRevision!, updatedAt: marketItemUpdatedAt! };
  return { ...suite, marketItem };
}

/**
 * The whole PATCH as one statement: the compare-and-set on `expected_revision`, the status
 * transition guard, the package's count rule and "a value equal to the stored one is not a
 * change" all sit in the WHERE clause, so the row is changed (revision + 1) only when every rule
 * holds and something differs, and is locked only for this statement. RETURNING gives the
 * response row with its market item, and `revisionBefore` the revision in the statement's
 * snapshot: when it is not one less, the UPDATE waited for another writer and re-read the suite
 * row, but the market item was still read in the older snapshot (see UpdatedSuiteRow). No row back means nothing was written: the caller reads the
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
 */
export function suiteUpdateStatement(organizationId: string, suiteId: string, body: UpdateExpertSuiteDto, audit: AuditContext, auditStatements: AuditStatements): Prisma.Sql | undefined {
  const now = audit.at;
  const sets: Prisma.Sql[] = [];
  const differs: Prisma.Sql[] = [];
  const guards: Prisma.Sql[] = [];
  // Each audited column under its wire name: the row's value before (s.<column> in the SET list) and the one set.
  const audited: Record<string, { old: Prisma.Sql; new: Prisma.Sql }> = {};
  const set = (column: string, value: Prisma.Sql) => {
    sets.push(Prisma.sql`${Prisma.raw(column)} = ${value}`);
    audited[column] = { old: Prisma.raw(`s.${column}`), new: value };
  };
  const setIfDifferent = (column: string, value: Prisma.Sql) => {
    set(column, value);
    differs.push(Prisma.sql`s.${Prisma.raw(column)} IS DISTINCT FROM ${value}`);
  };
  const text = (value: string) => Prisma.sql`${value}::text`;
  const json = (value: unknown) => (value === null ? Prisma.sql`NULL::jsonb` : Prisma.sql`${JSON.stringify(value)}::jsonb`);

  if (body.display_name !== undefined) setIfDifferent('display_name', text(body.display_name));
  if (body.display_name_cn !== undefined) setIfDifferent('display_name_cn', text(body.display_name_cn));
  if (body.description !== undefined) setIfDifferent('description', text(body.description));
  if (body.description_cn !== undefined) setIfDifferent('description_cn', text(body.description_cn));
  if (body.version !== undefined) setIfDifferent('version', text(body.version));
  if (body.clients !== undefined) setIfDifferent('clients', json(body.clients === null ? null : [...new Set(body.clients)]));
  if (body.connector_refs !== undefined) {
    const refs = normalizedConnectorRefs(body.connector_refs);
    setIfDifferent('connector_refs', json(refs));
    set('connector_count', Prisma.sql`${refs.length}::bigint`);
  }
  if (body.icon_url !== undefined) {
    setIfDifferent('icon_url', text(body.icon_url));
    set('icon_upload_id', Prisma.sql`NULL::uuid`);
    differs.push(Prisma.sql`s.icon_upload_id IS NOT NULL`);
  }
  // With a package the counts are the package's: a count sent must equal it and changes nothing.
  for (const [field, column] of [['command_count', 'command_count'], ['skill_count', 'skill_count']] as const) {
    const count = body[field];
    if (count === undefined) continue;
    set(column, Prisma.sql`CASE WHEN s.has_package THEN s.${Prisma.raw(column)} ELSE ${count}::bigint END`);
    differs.push(Prisma.sql`(NOT s.has_package AND s.${Prisma.raw(column)} <> ${count})`);
    guards.push(Prisma.sql`(NOT s.has_package OR s.${Prisma.raw(column)} = ${count})`);
  }
  if (body.status !== undefined) {
    setIfDifferent('status', text(body.status));
    guards.push(Prisma.sql`s.status IN (${Prisma.join(statusesAllowedBefore(body.status))})`);
    if (body.status === 'published') guards.push(Prisma.sql`(s.status = 'published' OR s.has_package)`);
  }
  if (sets.length === 0) return undefined;
  if (body.expected_revision !== undefined) guards.push(Prisma.sql`s.revision = ${body.expected_revision}`);

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
export function suiteSelectStatement(organizationId: string, suiteId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${SUITE_COLUMNS} FROM expert_suites AS u LEFT JOIN market_items AS m ON m.suite_id = u.id
    WHERE u.id = ${suiteId}::uuid AND u.organization_id = ${organizationId}::uuid`;
}

/**
 * The creation times a suite page token can carry, in epoch milliseconds: those both PostgreSQL's
 * timestamptz (from 4714-11-24 BC) and a JavaScript Date (to +275760-09-13) can hold.
 */
export const SUITE_CREATION_TIMES: SortValueRange = { min: -210_866_803_200_000n, max: 8_640_000_000_000_000n };

/**
 * One page of an organization's suites, by (created_at, id), after `position` (created_at in epoch
 * milliseconds, exact: the column keeps milliseconds), filtered by status and category.
 */
export function suitePageStatement(
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

export function normalizedConnectorRefs(refs: readonly Pick<ConnectorRefInputDto, 'connector_id' | 'connector_origin' | 'required'>[]) {
  return refs.map((ref) => ({ connector_id: ref.connector_id, connector_origin: ref.connector_origin, required: ref.required }));
}
