import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../../database/transaction-host';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Prisma } from '../../generated/prisma/client';
import { revisionETag, type RevisionPrecondition } from '../../common/http/entity-tags';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, startOfPage } from '../../common/pagination/page-token';
import type { ListExpertSuitesQueryDto } from './dto/list-expert-suites-query.dto';
import { UpdateExpertSuiteDto, type ConnectorRefInputDto } from './dto/update-expert-suite.dto';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { withoutUnchanged, type SuiteData } from './suite-changes';
import { canTransition } from './suite-status';
import { fitsOneStatement, normalizedConnectorRefs, SUITE_CREATION_TIMES, suitePageStatement, suiteRowToModel, suiteSelectStatement, suiteUpdateStatement, type SuiteRow, type UpdatedSuiteRow } from './suite-update-statement';
import type { PackageConnectorRef, PackageContents } from '../uploads/package-contents';
import { UploadLookupService } from '../uploads/upload-lookup.service';
import { RowLock } from '../../database/locks';
import { ExpertSuitesError } from './expert-suites.errors';
import type { AuditActor } from '../../common/audit/audit-actor';
import { AuditStatements, type AuditChanges } from '../../common/audit/audit-event';
import { ExpertSuitesAudit } from './expert-suites.audit';

interface PackageState {
  hasPackage: boolean;
  commandCount: number;
  skillCount: number;
}

// A one-statement PATCH that wrote nothing although the suite, read right after, says it would
// change: another writer got in between. Trying again is safe; this bounds it.
const MAX_ONE_STATEMENT_ATTEMPTS = 3;

@Injectable()
export class ExpertSuitesService {
  constructor(
    private readonly txHost: TransactionHost,
    private readonly uploads: UploadLookupService,
    private readonly clock: Clock,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * Applies a PATCH so that a refused PATCH changes nothing and a PATCH that changes something
   * increments the revision exactly once: as one compare-and-set statement where the body allows
   * it, otherwise in one transaction that holds the suite's row lock.
   */
  async update(
    organizationId: string,
    suiteId: string,
    body: UpdateExpertSuiteDto,
    precondition: RevisionPrecondition | undefined,
    actor: AuditActor,
  ): Promise<ExpertSuiteWithMarketItem> {
    refuseConflictingFields(body);
    if (precondition?.kind === 'absent') {
      await this.readSuite(organizationId, suiteId);
      throw new AppError(ErrorCode.PRECONDITION_FAILED, 'The expert suite exists, and If-None-Match: * lets a write through only where none does; nothing changed.');
    }
    const { expected, revisionCheck } = expectedRevision(body, precondition);
    if (fitsOneStatement(expected)) return this.updateInOneStatement(organizationId, suiteId, expected, revisionCheck, actor);
    return this.txHost.withTransaction(() => this.updateInTransaction(organizationId, suiteId, expected, revisionCheck, actor));
  }

  /** One suite, as PATCH returns it. */
  get(organizationId: string, suiteId: string): Promise<ExpertSuiteWithMarketItem> {
    return this.readSuite(organizationId, suiteId);
  }

  /**
   * The organization's suites, optionally of one status or category, ordered by creation then id,
   * one indexed statement per page (keyset pagination, as for departments: suites created while a
   * client pages through come after the pages it has read), on the read replica when there is one.
   */
  async list(organizationId: string, query: ListExpertSuitesQueryDto): Promise<{ items: ExpertSuiteWithMarketItem[]; next_page_token: string | null }> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['expert-suites', organizationId, query.status ?? '', query.category_id ?? ''];
    const position = startOfPage(tokenQuery, SUITE_CREATION_TIMES, query.page_token, 'filters');
    const rows = await this.txHost.replica.query<SuiteRow>(suitePageStatement(organizationId, query, position, pageSize + 1));
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.createdAt.getTime()), id: row.id }));
    return { items: page.items.map(suiteRowToModel), next_page_token: page.next_page_token };
  }

  private async updateInOneStatement(
    organizationId: string,
    suiteId: string,
    body: UpdateExpertSuiteDto,
    revisionCheck: RevisionCheck,
    actor: AuditActor,
  ): Promise<ExpertSuiteWithMarketItem> {
    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const statement = suiteUpdateStatement(organizationId, suiteId, body, { actor, at: now }, this.audit);
      if (statement) {
        const [updated] = await this.txHost.sql.query<UpdatedSuiteRow>(statement);
        if (updated) return this.withCurrentMarketItem(updated);
      }
      // Nothing was written: the suite as it is now says why, with the same checks in the same
      // order as a PATCH applied in a transaction.
      const suite = await this.readSuite(organizationId, suiteId);
      checkExpectedRevision(body.expected_revision, suite.revision, revisionCheck.code, revisionCheck.field, 'suite');
      const changes = await this.suiteChanges(suite, body, now);
      if (Object.keys(changes).length === 0) return suite;
      if (attempt === MAX_ONE_STATEMENT_ATTEMPTS) throw concurrentChange(revisionCheck.code, revisionCheck.field);
    }
  }

  private async updateInTransaction(
    organizationId: string,
    suiteId: string,
    body: UpdateExpertSuiteDto,
    revisionCheck: RevisionCheck,
    actor: AuditActor,
  ): Promise<ExpertSuiteWithMarketItem> {
    const tx = this.txHost.tx;
    const now = this.clock.now();
    // Writers of one suite (on any instance) queue on its row lock, so that a PATCH without
    // expected_revision applies on top of the one before it instead of failing; the writes below are
    // still compare-and-set on the revision that was read. The read is a statement of its own, after
    // the lock: its snapshot then sees the market item as the previous writer committed it.
    await this.txHost.sql.query(Prisma.sql`SELECT id FROM expert_suites WHERE id = ${suiteId}::uuid AND organization_id = ${organizationId}::uuid ${RowLock.forUpdate}`);
    const suite = await this.readSuite(organizationId, suiteId);

    checkExpectedRevision(body.expected_revision, suite.revision, revisionCheck.code, revisionCheck.field, 'suite');
    checkExpectedRevision(
      body.expected_market_item_revision,
      suite.marketItem?.revision ?? 0n,
      ExpertSuitesError.MARKET_ITEM_REVISION_CONFLICT,
      'expected_market_item_revision',
      'market item',
    );

    const categoryId = await this.categoryChange(suite, body);
    const changes = await this.suiteChanges(suite, body, now);

    if (Object.keys(changes).length === 0 && categoryId === undefined) return suite;

    // Any change, the category included, is a new revision of the suite (docs/expert-suites.md).
    // Its old values come from the read under the row lock above; last_change, which only the
    // one-statement PATCH needs, is cleared so that it never describes another revision.
    const { count } = await tx.expertSuite.updateMany({
      where: { id: suite.id, organizationId, revision: suite.revision },
      data: { ...changes, lastChange: Prisma.DbNull, revision: { increment: 1 }, updatedAt: now },
    });
    if (count !== 1) throw concurrentChange(revisionCheck.code, revisionCheck.field);
    if (categoryId !== undefined) await this.writeCategory(suite, categoryId, now);
    await this.txHost.sql.execute(
      this.audit.insert(
        { actor, at: now },
        {
          organizationId,
          action: ExpertSuitesAudit.SuiteUpdated,
          resourceId: suite.id,
          revisionBefore: suite.revision,
          revisionAfter: suite.revision + 1n,
          changes: auditedChanges(suite, changes, categoryId),
        },
      ),
    );
    return this.readSuite(organizationId, suiteId);
  }

  /**
   * The updated suite with its market item as committed: re-read only when the UPDATE waited for
   * another writer (which may have changed the market item after this statement's snapshot).
   */
  private async withCurrentMarketItem(updated: UpdatedSuiteRow): Promise<ExpertSuiteWithMarketItem> {
    const { revisionBefore, ...row } = updated;
    const suite = suiteRowToModel(row);
    if (revisionBefore + 1n === suite.revision) return suite;
    const [marketItem] = await this.txHost.sql.query<NonNullable<ExpertSuiteWithMarketItem['marketItem']>>(Prisma.sql`
      SELECT id, organization_id AS "organizationId", suite_id AS "suiteId", category_id AS "categoryId", revision, updated_at AS "updatedAt"
      FROM market_items WHERE suite_id = ${suite.id}::uuid`);
    return { ...suite, marketItem: marketItem ?? null };
  }

  private async readSuite(organizationId: string, suiteId: string): Promise<ExpertSuiteWithMarketItem> {
    const [row] = await this.txHost.sql.query<SuiteRow>(suiteSelectStatement(organizationId, suiteId));
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'No such resource.');
    return suiteRowToModel(row);
  }

  /** The new category (null: none), or undefined when the market item stays as it is. */
  private async categoryChange(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto): Promise<string | null | undefined> {
    const current = suite.marketItem?.categoryId ?? null;
    if (body.clear_category === true) return current === null ? undefined : null;
    if (body.category_id === undefined) return undefined;
    const categoryId = body.category_id;
    const category = await this.txHost.tx.category.findFirst({ where: { id: categoryId, organizationId: suite.organizationId } });
    if (!category) {
      throw new AppError(ExpertSuitesError.CATEGORY_NOT_FOUND, 'category_id: the organization has no such category.', {
        field: 'category_id',
        reason: 'not_found',
      });
    }
    return categoryId === current ? undefined : categoryId;
  }

  private async writeCategory(suite: ExpertSuiteWithMarketItem, categoryId: string | null, now: Date): Promise<void> {
    const tx = this.txHost.tx;
    if (!suite.marketItem) {
      await tx.marketItem.create({ data: { organizationId: suite.organizationId, suiteId: suite.id, categoryId, updatedAt: now } });
      return;
    }
    const { count } = await tx.marketItem.updateMany({
      where: { id: suite.marketItem.id, organizationId: suite.organizationId, revision: suite.marketItem.revision },
      data: { categoryId, revision: { increment: 1 }, updatedAt: now },
    });
    if (count !== 1) throw concurrentChange(ExpertSuitesError.MARKET_ITEM_REVISION_CONFLICT, 'expected_market_item_revision');
  }

  /** The suite columns this PATCH changes; a value equal to the stored one is not a change. */
  private async suiteChanges(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto, now: Date): Promise<SuiteData> {
    const wanted: SuiteData = {};
    if (body.display_name !== undefined) wanted.displayName = body.display_name;
    if (body.display_name_cn !== undefined) wanted.displayNameCn = body.display_name_cn;
    if (body.description !== undefined) wanted.description = body.description;
    if (body.description_cn !== undefined) wanted.descriptionCn = body.description_cn;
    if (body.version !== undefined) wanted.version = body.version;
    if (body.clients !== undefined) wanted.clients = body.clients === null ? Prisma.DbNull : [...new Set(body.clients)];
    if (body.connector_refs !== undefined) Object.assign(wanted, connectorRefColumns(body.connector_refs));

    let packageState: PackageState = {
      hasPackage: suite.hasPackage,
      commandCount: Number(suite.commandCount),
      skillCount: Number(suite.skillCount),
    };
    if (body.upload_id !== undefined) {
      const upload = await this.uploads.findUsable(suite.organizationId, body.upload_id, 'package', 'upload_id', now);
      const contents = upload.manifest as unknown as PackageContents;
      Object.assign(wanted, packageColumns(contents, upload.id, body.connector_refs === undefined));
      packageState = { hasPackage: true, commandCount: contents.commands.length, skillCount: contents.skills.length };
      if (body.version !== undefined) requireMatch('version', body.version, contents.version, "the package's version");
    }
    if (packageState.hasPackage) {
      requireMatch('command_count', body.command_count, packageState.commandCount, "the package's number of commands");
      requireMatch('skill_count', body.skill_count, packageState.skillCount, "the package's number of skills");
    } else {
      if (body.command_count !== undefined) wanted.commandCount = BigInt(body.command_count);
      if (body.skill_count !== undefined) wanted.skillCount = BigInt(body.skill_count);
    }

    if (body.icon_upload_id !== undefined) {
      const icon = await this.uploads.findUsable(suite.organizationId, body.icon_upload_id, 'icon', 'icon_upload_id', now);
      // The address is built when an answer is written (toExpertSuiteDto), never stored.
      wanted.iconUrl = '';
      wanted.iconUploadId = icon.id;
    } else if (body.icon_url !== undefined) {
      wanted.iconUrl = body.icon_url;
      wanted.iconUploadId = null;
    }

    if (body.status !== undefined && body.status !== suite.status) {
      if (!canTransition(suite.status, body.status)) {
        throw new AppError(ExpertSuitesError.INVALID_STATUS_TRANSITION, `status: a ${suite.status} suite cannot become ${body.status}.`, {
          field: 'status',
          reason: 'invalid_transition',
        });
      }
      if (body.status === 'published' && !packageState.hasPackage) {
        throw new AppError(ExpertSuitesError.PACKAGE_REQUIRED, 'status: a suite needs a resource package (upload_id) before it can be published.', {
          field: 'status',
          reason: 'package_required',
        });
      }
      wanted.status = body.status;
    }

    return withoutUnchanged(suite, wanted);
  }
}

/**
 * The suite columns an event names, by their wire names (the PATCH's for the uploads). The
 * contents a package copies (commands, skills, connectors, the readmes) are named by the package's
 * `upload_id`, not copied into the event.
 */
const AUDITED_COLUMNS: Partial<Record<keyof SuiteData, string>> = {
  displayName: 'display_name',
  displayNameCn: 'display_name_cn',
  description: 'description',
  descriptionCn: 'description_cn',
  version: 'version',
  status: 'status',
  clients: 'clients',
  connectorRefs: 'connector_refs',
  connectorCount: 'connector_count',
  commandCount: 'command_count',
  skillCount: 'skill_count',
  iconUrl: 'icon_url',
  iconUploadId: 'icon_upload_id',
  hasPackage: 'has_package',
  packageUploadId: 'upload_id',
};

function auditedChanges(suite: ExpertSuiteWithMarketItem, changes: SuiteData, categoryId: string | null | undefined): AuditChanges {
  const audited: AuditChanges = {};
  for (const [column, value] of Object.entries(changes) as [keyof SuiteData, unknown][]) {
    const wireName = AUDITED_COLUMNS[column];
    if (wireName === undefined) continue;
    audited[wireName] = { old: suite[column as keyof ExpertSuiteWithMarketItem] ?? null, new: value === Prisma.DbNull ? null : value };
  }
  if (categoryId !== undefined) audited.category_id = { old: suite.marketItem?.categoryId ?? null, new: categoryId };
  return audited;
}

function refuseConflictingFields(body: UpdateExpertSuiteDto): void {
  if (body.icon_url !== undefined && body.icon_upload_id !== undefined) {
    throw AppError.validation('icon_upload_id', 'conflicting_fields', 'icon_upload_id: send either icon_url or icon_upload_id, not both.');
  }
  if (body.category_id !== undefined && body.clear_category === true) {
    throw AppError.validation('clear_category', 'conflicting_fields', 'clear_category: send either category_id or clear_category: true, not both.');
  }
}

/** How a stale expected revision is answered: 409 for `expected_revision`, 412 for `If-Match`. */
interface RevisionCheck {
  code: ErrorCode;
  field: string;
}

const BODY_REVISION_CHECK: RevisionCheck = { code: ExpertSuitesError.REVISION_CONFLICT, field: 'expected_revision' };
const IF_MATCH_REVISION_CHECK: RevisionCheck = { code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' };

/**
 * The body with the revision the client expects, from `expected_revision` or from `If-Match`
 * (RFC 9110: a precondition is evaluated before the method, so a stale If-Match is 412 even
 * when expected_revision says the same). Both, and different: 400 conflicting_fields.
 */
function expectedRevision(body: UpdateExpertSuiteDto, precondition: RevisionPrecondition | undefined): { expected: UpdateExpertSuiteDto; revisionCheck: RevisionCheck } {
  if (precondition?.kind !== 'revision') return { expected: body, revisionCheck: BODY_REVISION_CHECK };
  if (body.expected_revision !== undefined && body.expected_revision !== precondition.revision) {
    throw AppError.validation(
      'expected_revision',
      'conflicting_fields',
      `expected_revision (${body.expected_revision}) and If-Match (${revisionETag(precondition.revision)}) name different revisions; send one of them.`,
    );
  }
  return { expected: Object.assign(new UpdateExpertSuiteDto(), body, { expected_revision: precondition.revision }), revisionCheck: IF_MATCH_REVISION_CHECK };
}

/** A compare-and-set matched no row: the record changed after it was read. */
function concurrentChange(code: ErrorCode, field: string): AppError {
  return new AppError(code, 'The record was changed by another request at the same time; read it again and retry.', {
    field,
    reason: 'revision_mismatch',
  });
}

function checkExpectedRevision(expected: number | undefined, stored: bigint, code: ErrorCode, field: string, what: string): void {
  if (expected === undefined || BigInt(expected) === stored) return;
  throw new AppError(code, `${field}: the ${what} is at revision ${stored}, not ${expected}; read it again and retry.`, {
    field,
    reason: 'revision_mismatch',
    suggestion: String(stored),
  });
}

function requireMatch<T extends string | number>(field: string, sent: T | undefined, expected: T, what: string): void {
  if (sent === undefined || sent === expected) return;
  throw AppError.validation(field, 'invalid_value', `${field}: must equal ${what} (${expected}).`, String(expected));
}

function connectorRefColumns(refs: readonly (ConnectorRefInputDto | PackageConnectorRef)[]): SuiteData {
  const normalized = normalizedConnectorRefs(refs);
  return { connectorRefs: normalized, connectorCount: BigInt(normalized.length) };
}

function packageColumns(contents: PackageContents, uploadId: string, takeConnectorRefs: boolean): SuiteData {
  return {
    version: contents.version,
    commands: contents.commands as unknown as Prisma.InputJsonValue,
    commandCount: BigInt(contents.commands.length),
    skills: contents.skills as unknown as Prisma.InputJsonValue,
    skillCount: BigInt(contents.skills.length),
    connectors: contents.connectors as Prisma.InputJsonValue,
    // connector_count follows connectors.json, whose elements need not all name a connector.
    ...(takeConnectorRefs ? { ...connectorRefColumns(contents.connector_refs), connectorCount: BigInt(contents.connectors.length) } : {}),
    readmeContent: contents.readme_content,
    readmeContentCn: contents.readme_content_cn,
    hasPackage: true,
    packageUploadId: uploadId,
  };
}

