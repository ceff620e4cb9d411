import type { Pool } from 'pg';
import { auditCtes, auditParameters, changed, type Actor } from './audit';
import { HttpError } from './http';
import { refuseUnknownFields, text } from './input';

interface SuiteRow {
  id: string;
  name: string;
  display_name: string;
  display_name_cn: string;
  description: string;
  description_cn: string;
  version: string;
  status: string;
  origin: string;
  source_type: string;
  clients: string[] | null;
  command_count: string;
  commands: object[] | null;
  skill_count: string;
  skills: object[] | null;
  connector_count: string;
  connectors: object[] | null;
  connector_refs: object[] | null;
  has_package: boolean;
  icon_url: string;
  readme_content: string;
  readme_content_cn: string;
  revision: string;
  created_at: Date;
  updated_at: Date;
  category_id: string | null;
  market_item_revision: string | null;
}

// The compare-and-set: the row is changed (and its revision bumped) only when the value differs,
// in one statement that also writes the `expert_suite.updated` event and its outbox rows and
// returns the answer with its market item. The event's old value is computed in the SET list,
// where `s` is the row version being replaced (after a wait for another writer, the one it
// committed), into last_change, as the service does (docs/adr/0010-audit-old-values-in-last-change.md).
const UPDATE_DISPLAY_NAME = `
  WITH updated AS (
    UPDATE expert_suites AS s SET display_name = $3, last_change = ${changed('display_name', 's.display_name', '$3::text')},
      revision = s.revision + 1, updated_at = $5::timestamptz
    WHERE id = $1 AND organization_id = $2 AND display_name IS DISTINCT FROM $3
    RETURNING *),
  ${auditCtes({
    from: 'updated',
    firstParameter: 4,
    organizationId: 'updated.organization_id',
    action: 'expert_suite.updated',
    resourceId: 'updated.id::text',
    revisionBefore: 'updated.revision - 1',
    revisionAfter: 'updated.revision',
    changes: 'updated.last_change',
  })}
  SELECT updated.*, m.category_id, m.revision AS market_item_revision
  FROM updated LEFT JOIN market_items m ON m.suite_id = updated.id`;

const READ_SUITE = `
  SELECT s.*, m.category_id, m.revision AS market_item_revision
  FROM expert_suites s LEFT JOIN market_items m ON m.suite_id = s.id
  WHERE s.id = $1 AND s.organization_id = $2`;

/** PATCH expert-suites/{id}, for the one field the benchmark sends: display_name. */
export class ExpertSuites {
  constructor(private readonly pool: Pool) {}

  async update(organizationId: string, actor: Actor, suiteId: string, body: Record<string, unknown>): Promise<string> {
    refuseUnknownFields(body, ['display_name']);
    if (body.display_name !== undefined) {
      const displayName = text(body.display_name, 'display_name', 255, true);
      const { rows } = await this.pool.query<SuiteRow>({ name: 'update-display-name', text: UPDATE_DISPLAY_NAME, values: [suiteId, organizationId, displayName, ...auditParameters(actor).values] });
      if (rows.length === 1) return toJson(rows[0]);
    }
    // Nothing changed (or no such suite): answer the suite as stored.
    const { rows } = await this.pool.query<SuiteRow>({ name: 'read-suite', text: READ_SUITE, values: [suiteId, organizationId] });
    if (rows.length === 0) throw new HttpError(404, 'NOT_FOUND', 'No such resource.');
    return toJson(rows[0]);
  }
}

function toJson(row: SuiteRow): string {
  return JSON.stringify({
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    display_name_cn: row.display_name_cn,
    description: row.description,
    description_cn: row.description_cn,
    version: row.version,
    status: row.status,
    origin: row.origin,
    source_type: row.source_type,
    clients: row.clients,
    command_count: Number(row.command_count),
    commands: row.commands,
    skill_count: Number(row.skill_count),
    skills: row.skills,
    connector_count: Number(row.connector_count),
    connectors: row.connectors,
    connector_refs: row.connector_refs,
    has_package: row.has_package,
    icon_url: row.icon_url,
    readme_content: row.readme_content,
    readme_content_cn: row.readme_content_cn,
    revision: Number(row.revision),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    category_id: row.category_id,
    market_item_revision: Number(row.market_item_revision ?? 0),
  });
}
