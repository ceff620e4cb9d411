import { canonicalJson } from '../../common/json/canonical-json';
import { Prisma } from '../../generated/prisma/client';
import type { ExpertSuiteWithMarketItem } from './expert-suite.mapper';

export type SuiteData = Prisma.ExpertSuiteUncheckedUpdateManyInput;

/**
 * The columns of `wanted` whose value differs from the stored suite's: a value equal to the stored
 * one is not a change (so a PATCH that sends what is stored leaves revision and updated_at alone).
 */
export function withoutUnchanged(suite: ExpertSuiteWithMarketItem, wanted: SuiteData): SuiteData {
  const changes: SuiteData = {};
  for (const [column, value] of Object.entries(wanted) as [keyof SuiteData, unknown][]) {
    if (!sameValue(suite[column as keyof ExpertSuiteWithMarketItem], value)) (changes as Record<string, unknown>)[column] = value;
  }
  return changes;
}

/** Stored and wanted values compare as JSON with keys sorted (jsonb keeps no key order); int64 exactly; DbNull as null. */
export function sameValue(stored: unknown, value: unknown): boolean {
  if (value === Prisma.DbNull) return stored === null;
  if (typeof stored === 'bigint' || typeof value === 'bigint') return stored === value;
  return canonicalJson(stored ?? null) === canonicalJson(value ?? null);
}
