import { Injectable } from '@nestjs/common';
import { SqlHost } from '../../database/sql-host';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { revisionMismatch, type RevisionRequirement } from '../../common/http/write-preconditions';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, startOfPage, type SortValueRange } from '../../common/pagination/page-token';
import type { ListExpertSuitesQueryDto } from './dto/list-expert-suites-query.dto';
import { UpdateExpertSuiteDto } from './dto/update-expert-suite.dto';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { auditedChanges, diffOf, packageStateOf, requireMatch, type PackageState, type SuiteDiff } from './suite-changes';
import { fitsOneStatement, iconUploadWrites, ownFieldWrites, packageWrites, type SuiteWrite } from './suite-patch';
import type { PackageContents } from '../uploads/package-contents';
import { UploadLookupService } from '../uploads/upload-lookup.service';
import { ExpertSuitesError } from './expert-suites.errors';
import type { AuditActor } from '../../common/audit/audit-actor';
import { CategoriesRepository } from './categories.repository';
import { ExpertSuitesRepository, type UpdatedSuite } from './expert-suites.repository';

// A one-statement PATCH that wrote nothing although the suite, read right after, says it would
// change: another writer got in between. Trying again is safe; this bounds it.
const MAX_ONE_STATEMENT_ATTEMPTS = 3;

/**
 * The creation times a suite page token can carry, in epoch milliseconds: those both PostgreSQL's
 * timestamptz (from 4714-11-24 BC) and a JavaScript Date (to +275760-09-13) can hold.
 */
const SUITE_CREATION_TIMES: SortValueRange = { min: -210_866_803_200_000n, max: 8_640_000_000_000_000n };

@Injectable()
export class ExpertSuitesService {
  constructor(
    private readonly txHost: SqlHost,
    private readonly suites: ExpertSuitesRepository,
    private readonly categories: CategoriesRepository,
    private readonly uploads: UploadLookupService,
    private readonly clock: Clock,
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
    requirement: RevisionRequirement,
    actor: AuditActor,
  ): Promise<ExpertSuiteWithMarketItem> {
    refuseConflictingFields(body);
    if (requirement.kind === 'absent') {
      await this.readSuite(organizationId, suiteId);
      throw new AppError(ErrorCode.PRECONDITION_FAILED, 'The expert suite exists, and If-None-Match: * lets a write through only where none does; nothing changed.');
    }
    const { expected, revisionCheck } = withExpectedRevision(body, requirement);
    if (fitsOneStatement(expected)) return this.updateInOneStatement(organizationId, suiteId, expected, revisionCheck, actor);
    return this.txHost.withSqlTransaction(() => this.updateInTransaction(organizationId, suiteId, expected, revisionCheck, actor));
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
    const suites = await this.suites.listPage(organizationId, query, position, pageSize + 1);
    return pageOfRows(tokenQuery, suites, pageSize, (suite) => ({ after: String(suite.createdAt.getTime()), id: suite.id }));
  }

  private async updateInOneStatement(
    organizationId: string,
    suiteId: string,
    body: UpdateExpertSuiteDto,
    revisionCheck: RevisionCheck,
    actor: AuditActor,
  ): Promise<ExpertSuiteWithMarketItem> {
    const writes = ownFieldWrites(body);
    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const updated = await this.suites.updateInOneStatement(organizationId, suiteId, writes, body.expected_revision, { actor, at: now });
      if (updated) return this.withCurrentMarketItem(updated);
      // Nothing was written: the suite as it is now says why, with the same rules (suite-patch.ts)
      // checked in code, in the same order as a PATCH applied in a transaction.
      const suite = await this.readSuite(organizationId, suiteId);
      checkExpectedRevision(body.expected_revision, suite.revision, revisionCheck.code, revisionCheck.field, 'suite');
      if (!diffOf(suite, writes, packageStateOf(suite)).isChange) return suite;
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
    const now = this.clock.now();
    // Writers of one suite (on any instance) queue on its row lock, so that a PATCH without
    // expected_revision applies on top of the one before it instead of failing; the writes below are
    // still compare-and-set on the revision that was read. The read is a statement of its own, after
    // the lock: its snapshot then sees the market item as the previous writer committed it.
    await this.suites.lockForUpdate(organizationId, suiteId);
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
    const diff = await this.suiteDiff(suite, body, now);

    if (!diff.isChange && categoryId === undefined) return suite;

    // Any change, the category included, is a new revision of the suite (docs/expert-suites.md).
    // Its old values come from the read under the row lock above.
    if (!(await this.suites.updateColumns(suite, diff.columns, now))) throw concurrentChange(revisionCheck.code, revisionCheck.field);
    if (categoryId !== undefined) await this.writeCategory(suite, categoryId, now);
    await this.suites.insertUpdatedEvent({ actor, at: now }, suite, auditedChanges(suite, diff.columns, categoryId));
    return this.readSuite(organizationId, suiteId);
  }

  /**
   * The updated suite with its market item as committed: re-read only when the UPDATE waited for
   * another writer (which may have changed the market item after this statement's snapshot).
   */
  private async withCurrentMarketItem({ suite, revisionBefore }: UpdatedSuite): Promise<ExpertSuiteWithMarketItem> {
    if (revisionBefore + 1n === suite.revision) return suite;
    return { ...suite, marketItem: (await this.suites.findMarketItem(suite.id)) ?? null };
  }

  private async readSuite(organizationId: string, suiteId: string): Promise<ExpertSuiteWithMarketItem> {
    const suite = await this.suites.findById(organizationId, suiteId);
    if (!suite) throw new AppError(ErrorCode.NOT_FOUND, 'No such resource.');
    return suite;
  }

  /** The new category (null: none), or undefined when the market item stays as it is. */
  private async categoryChange(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto): Promise<string | null | undefined> {
    const current = suite.marketItem?.categoryId ?? null;
    if (body.clear_category === true) return current === null ? undefined : null;
    if (body.category_id === undefined) return undefined;
    const categoryId = body.category_id;
    if (!(await this.categories.exists(suite.organizationId, categoryId))) {
      throw new AppError(ExpertSuitesError.CATEGORY_NOT_FOUND, 'category_id: the organization has no such category.', {
        field: 'category_id',
        reason: 'not_found',
      });
    }
    return categoryId === current ? undefined : categoryId;
  }

  private async writeCategory(suite: ExpertSuiteWithMarketItem, categoryId: string | null, now: Date): Promise<void> {
    if (!suite.marketItem) {
      await this.suites.insertMarketItem(suite, categoryId, now);
      return;
    }
    if (!(await this.suites.updateMarketItemCategory(suite.marketItem, categoryId, now))) {
      throw concurrentChange(ExpertSuitesError.MARKET_ITEM_REVISION_CONFLICT, 'expected_market_item_revision');
    }
  }

  /**
   * What this PATCH changes on the suite: the uploads it names looked up (422 when missing or not
   * usable) and turned into writes, then every write checked and compared by the rules of
   * suite-patch.ts, as the one statement does in SQL.
   */
  private async suiteDiff(suite: ExpertSuiteWithMarketItem, body: UpdateExpertSuiteDto, now: Date): Promise<SuiteDiff> {
    const writes: SuiteWrite[] = ownFieldWrites(body);
    let packageState: PackageState = packageStateOf(suite);
    let contents: PackageContents | undefined;
    if (body.upload_id !== undefined) {
      const upload = await this.uploads.findUsable(suite.organizationId, body.upload_id, 'package', 'upload_id', now);
      contents = upload.manifest as unknown as PackageContents;
      writes.push(...packageWrites(contents, upload.id, body.connector_refs === undefined));
      packageState = { hasPackage: true, commandCount: BigInt(contents.commands.length), skillCount: BigInt(contents.skills.length) };
    }
    if (body.icon_upload_id !== undefined) {
      const icon = await this.uploads.findUsable(suite.organizationId, body.icon_upload_id, 'icon', 'icon_upload_id', now);
      writes.push(...iconUploadWrites(icon.id));
    }
    if (contents !== undefined) requireMatch('version', body.version, contents.version, "the package's version");
    return diffOf(suite, writes, packageState);
  }
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

/**
 * The body with the revision the request requires as its `expected_revision` (the one-statement
 * PATCH compares it in SQL), and how a stale one is answered.
 */
function withExpectedRevision(body: UpdateExpertSuiteDto, requirement: RevisionRequirement): { expected: UpdateExpertSuiteDto; revisionCheck: RevisionCheck } {
  if (requirement.kind !== 'revision') return { expected: body, revisionCheck: BODY_REVISION_CHECK };
  return {
    expected: Object.assign(new UpdateExpertSuiteDto(), body, { expected_revision: Number(requirement.revision) }),
    revisionCheck: { code: requirement.code, field: requirement.field },
  };
}

/** A compare-and-set matched no row: the record changed after it was read. */
function concurrentChange(code: ErrorCode, field: string): AppError {
  return new AppError(code, 'The record was changed by another request at the same time; read it again and retry.', {
    field,
    reason: 'revision_mismatch',
  });
}

function checkExpectedRevision(expected: number | undefined, stored: bigint, code: ErrorCode, field: string, what: string): void {
  if (expected !== undefined && BigInt(expected) !== stored) throw revisionMismatch(code, field, what, stored, expected);
}
