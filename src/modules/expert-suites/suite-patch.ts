import type { ExpertSuite } from '../../generated/prisma/client';
import type { PackageContents } from '../uploads/package-contents';
import type { ConnectorRefInputDto, UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import type { SuiteStatus } from './suite-status';

/**
 * The rules of a PATCH, once, for both ways it is applied (docs/expert-suites.md): the one
 * statement (ExpertSuitesRepository.updateInOneStatement) turns them into its SET list, WHERE
 * guards and change test in SQL; the transaction (suite-changes.ts) checks and compares them in
 * code, and also says why a statement wrote nothing.
 */

/** The SQL type a column's value is sent as; a `bigint` column's value is compared as a bigint. */
export type ColumnType = 'text' | 'jsonb' | 'bigint' | 'uuid' | 'boolean';

/**
 * The suite columns a PATCH writes, with the name an `expert_suite.updated` event gives each (the
 * PATCH's wire name). The contents a package copies have none: the event names the package by its
 * `upload_id` instead of copying it.
 */
export const PATCHED_COLUMNS = {
  displayName: { type: 'text', audit: 'display_name' },
  displayNameCn: { type: 'text', audit: 'display_name_cn' },
  description: { type: 'text', audit: 'description' },
  descriptionCn: { type: 'text', audit: 'description_cn' },
  version: { type: 'text', audit: 'version' },
  status: { type: 'text', audit: 'status' },
  clients: { type: 'jsonb', audit: 'clients' },
  connectorRefs: { type: 'jsonb', audit: 'connector_refs' },
  connectorCount: { type: 'bigint', audit: 'connector_count' },
  commandCount: { type: 'bigint', audit: 'command_count' },
  skillCount: { type: 'bigint', audit: 'skill_count' },
  iconUrl: { type: 'text', audit: 'icon_url' },
  iconUploadId: { type: 'uuid', audit: 'icon_upload_id' },
  hasPackage: { type: 'boolean', audit: 'has_package' },
  packageUploadId: { type: 'uuid', audit: 'upload_id' },
  commands: { type: 'jsonb', audit: null },
  skills: { type: 'jsonb', audit: null },
  connectors: { type: 'jsonb', audit: null },
  readmeContent: { type: 'text', audit: null },
  readmeContentCn: { type: 'text', audit: null },
} as const satisfies Partial<Record<keyof ExpertSuite, { type: ColumnType; audit: string | null }>>;

export type PatchedColumn = keyof typeof PATCHED_COLUMNS;

/** What one PATCH field asks of a column of the suite row. */
export type SuiteWrite =
  /** Set; a value other than the stored one is a change. */
  | { rule: 'value'; column: PatchedColumn; value: unknown }
  /** Set along with a change of another column, and never a change of its own. */
  | { rule: 'follows'; column: PatchedColumn; value: unknown }
  /** Set to NULL; a stored value is a change. */
  | { rule: 'clears'; column: PatchedColumn }
  /** While the suite has no package, set; with one, must equal the package's count and changes nothing. */
  | { rule: 'package count'; column: 'commandCount' | 'skillCount'; field: 'command_count' | 'skill_count'; count: number }
  /** Set when it differs, only along an allowed transition (suite-status.ts); becoming `published` needs a package. */
  | { rule: 'status'; status: SuiteStatus };

/** The fields a PATCH can only apply after reading other records (uploads, categories, the market item). */
const FIELDS_NEEDING_READS = ['upload_id', 'icon_upload_id', 'category_id', 'clear_category', 'expected_market_item_revision'] as const;

/** True when the PATCH can be one compare-and-set UPDATE of the suite row, with no read before it. */
export function fitsOneStatement(body: UpdateExpertSuiteDto): boolean {
  return FIELDS_NEEDING_READS.every((field) => body[field] === undefined);
}

type OwnField = 'display_name' | 'display_name_cn' | 'description' | 'description_cn' | 'version' | 'clients' | 'connector_refs' | 'icon_url' | 'command_count' | 'skill_count' | 'status';

/**
 * The suite's own fields (those that need no other record) and the writes each asks for, in the
 * order the one statement sets them.
 */
const OWN_FIELDS: { [F in OwnField]: (value: Exclude<UpdateExpertSuiteDto[F], undefined>) => SuiteWrite[] } = {
  display_name: (value) => [{ rule: 'value', column: 'displayName', value }],
  display_name_cn: (value) => [{ rule: 'value', column: 'displayNameCn', value }],
  description: (value) => [{ rule: 'value', column: 'description', value }],
  description_cn: (value) => [{ rule: 'value', column: 'descriptionCn', value }],
  version: (value) => [{ rule: 'value', column: 'version', value }],
  // null: every client type. Duplicates are dropped, the first of each kept.
  clients: (clients) => [{ rule: 'value', column: 'clients', value: clients === null ? null : [...new Set(clients)] }],
  // The whole list is replaced; connector_count becomes its length, but does not make a change of
  // its own (a package's count is that of connectors.json, whose elements need not all name a connector).
  connector_refs: (refs) => {
    const normalized = normalizedConnectorRefs(refs);
    return [
      { rule: 'value', column: 'connectorRefs', value: normalized },
      { rule: 'follows', column: 'connectorCount', value: normalized.length },
    ];
  },
  // An address given forgets any uploaded icon.
  icon_url: (url) => [
    { rule: 'value', column: 'iconUrl', value: url },
    { rule: 'clears', column: 'iconUploadId' },
  ],
  command_count: (count) => [{ rule: 'package count', column: 'commandCount', field: 'command_count', count }],
  skill_count: (count) => [{ rule: 'package count', column: 'skillCount', field: 'skill_count', count }],
  status: (status) => [{ rule: 'status', status }],
};

// Every field of the body is an own field, one needing reads, or expected_revision: a field added to
// the DTO but to neither list, which both ways would ignore, does not compile.
const everyFieldPlaced: [Exclude<keyof UpdateExpertSuiteDto, OwnField | (typeof FIELDS_NEEDING_READS)[number] | 'expected_revision'>] extends [never] ? true : false = true;

const OWN_FIELD_WRITES = Object.entries(OWN_FIELDS) as [OwnField, (value: unknown) => SuiteWrite[]][];

/** The writes of the body's own fields, in the order of OWN_FIELDS. */
export function ownFieldWrites(body: UpdateExpertSuiteDto): SuiteWrite[] {
  const writes: SuiteWrite[] = [];
  for (const [field, toWrites] of OWN_FIELD_WRITES) {
    if (body[field] !== undefined) writes.push(...toWrites(body[field]));
  }
  return writes;
}

/**
 * `upload_id`: what applying the package copies. Its connector_refs unless the request sends its
 * own, which then win; connector_count follows connectors.json, whose elements need not all name a
 * connector.
 */
export function packageWrites(contents: PackageContents, uploadId: string, takeConnectorRefs: boolean): SuiteWrite[] {
  return [
    value('version', contents.version),
    value('commands', contents.commands),
    value('commandCount', contents.commands.length),
    value('skills', contents.skills),
    value('skillCount', contents.skills.length),
    value('connectors', contents.connectors),
    ...(takeConnectorRefs ? [value('connectorRefs', normalizedConnectorRefs(contents.connector_refs)), value('connectorCount', contents.connectors.length)] : []),
    value('readmeContent', contents.readme_content),
    value('readmeContentCn', contents.readme_content_cn),
    value('hasPackage', true),
    value('packageUploadId', uploadId),
  ];
}

/** `icon_upload_id`: the address is built when an answer is written (toExpertSuiteDto), never stored. */
export function iconUploadWrites(uploadId: string): SuiteWrite[] {
  return [value('iconUrl', ''), value('iconUploadId', uploadId)];
}

function value(column: PatchedColumn, value: unknown): SuiteWrite {
  return { rule: 'value', column, value };
}

/** Connector references as stored: the three keys, in this order. */
function normalizedConnectorRefs(refs: readonly Pick<ConnectorRefInputDto, 'connector_id' | 'connector_origin' | 'required'>[]) {
  return refs.map((ref) => ({ connector_id: ref.connector_id, connector_origin: ref.connector_origin, required: ref.required }));
}
