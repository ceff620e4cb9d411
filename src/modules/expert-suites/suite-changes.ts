import type { AuditChanges } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import { canonicalJson } from '../../common/json/canonical-json';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';
import { ExpertSuitesError } from './expert-suites.errors';
import { PATCHED_COLUMNS, type PatchedColumn, type SuiteWrite } from './suite-patch';
import { canTransition } from './suite-status';

/** Columns and their new values, as stored (bigint columns as bigint). */
export type SuiteChanges = Partial<Record<PatchedColumn, unknown>>;

/** The columns whose values differ from the stored ones, and whether that makes a change (a column that only follows another does not). */
export interface SuiteDiff {
  columns: SuiteChanges;
  isChange: boolean;
}

/** Whether the suite has a package and its counts: as stored, or as a package the same PATCH applies leaves them. */
export interface PackageState {
  hasPackage: boolean;
  commandCount: bigint;
  skillCount: bigint;
}

export function packageStateOf(suite: ExpertSuiteWithMarketItem): PackageState {
  return { hasPackage: suite.hasPackage, commandCount: suite.commandCount, skillCount: suite.skillCount };
}

const COUNTED = { command_count: 'commands', skill_count: 'skills' } as const;

/**
 * What `writes` change on `suite`, each rule checked in code as the one statement checks it in SQL
 * (suite-patch.ts): a value equal to the stored one is not a change, so a PATCH that sends what is
 * stored changes nothing (revision and updated_at stay). Throws the refusal of a rule, in the order
 * of the writes: a count other than the package's, a status transition not allowed, publishing
 * without a package.
 */
export function diffOf(suite: ExpertSuiteWithMarketItem, writes: readonly SuiteWrite[], packageState: PackageState): SuiteDiff {
  const diff: SuiteDiff = { columns: {}, isChange: false };
  const write = (column: PatchedColumn, value: unknown, isChange: boolean) => {
    const stored = storedValue(column, value);
    if (sameValue(suite[column], stored)) return;
    diff.columns[column] = stored;
    diff.isChange ||= isChange;
  };
  for (const each of writes) {
    switch (each.rule) {
      case 'value':
        write(each.column, each.value, true);
        break;
      case 'follows':
        write(each.column, each.value, false);
        break;
      case 'clears':
        write(each.column, null, true);
        break;
      case 'package count':
        if (packageState.hasPackage) requireMatch(each.field, each.count, Number(packageState[each.column]), `the package's number of ${COUNTED[each.field]}`);
        else write(each.column, each.count, true);
        break;
      case 'status':
        if (each.status === suite.status) break;
        if (!canTransition(suite.status, each.status)) {
          throw new AppError(ExpertSuitesError.INVALID_STATUS_TRANSITION, `status: a ${suite.status} suite cannot become ${each.status}.`, {
            field: 'status',
            reason: 'invalid_transition',
          });
        }
        if (each.status === 'published' && !packageState.hasPackage) {
          throw new AppError(ExpertSuitesError.PACKAGE_REQUIRED, 'status: a suite needs a resource package (upload_id) before it can be published.', {
            field: 'status',
            reason: 'package_required',
          });
        }
        write('status', each.status, true);
        break;
    }
  }
  return diff;
}

/** A field sent with a package must equal the package's value (400 invalid_value, the package's value as suggestion). */
export function requireMatch<T extends string | number>(field: string, sent: T | undefined, expected: T, what: string): void {
  if (sent === undefined || sent === expected) return;
  throw AppError.validation(field, 'invalid_value', `${field}: must equal ${what} (${expected}).`, String(expected));
}

/** The changes an `expert_suite.updated` event names, under their wire names (PATCHED_COLUMNS), with the category's when it changed. */
export function auditedChanges(suite: ExpertSuiteWithMarketItem, changes: SuiteChanges, categoryId: string | null | undefined): AuditChanges {
  const audited: AuditChanges = {};
  for (const [column, value] of Object.entries(changes) as [PatchedColumn, unknown][]) {
    const wireName = PATCHED_COLUMNS[column].audit;
    if (wireName !== null) audited[wireName] = { old: suite[column] ?? null, new: value };
  }
  if (categoryId !== undefined) audited.category_id = { old: suite.marketItem?.categoryId ?? null, new: categoryId };
  return audited;
}

function storedValue(column: PatchedColumn, value: unknown): unknown {
  return PATCHED_COLUMNS[column].type === 'bigint' ? BigInt(value as number | bigint) : value;
}

/** Stored and wanted values compare as JSON with keys sorted (jsonb keeps no key order); int64 exactly. */
export function sameValue(stored: unknown, value: unknown): boolean {
  if (typeof stored === 'bigint' || typeof value === 'bigint') return stored === value;
  return canonicalJson(stored ?? null) === canonicalJson(value ?? null);
}
