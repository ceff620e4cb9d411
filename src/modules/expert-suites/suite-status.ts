export const SUITE_STATUSES = ['draft', 'published', 'disabled'] as const;
export type SuiteStatus = (typeof SUITE_STATUSES)[number];

/** The changes a PATCH may make to status (docs/expert-suites.md). Staying put is not a change. */
const ALLOWED_TRANSITIONS: Record<SuiteStatus, readonly SuiteStatus[]> = {
  draft: ['published', 'disabled'],
  published: ['disabled'],
  disabled: ['published'],
};

export function canTransition(from: string, to: SuiteStatus): boolean {
  return (ALLOWED_TRANSITIONS[from as SuiteStatus] ?? []).includes(to);
}

/** The statuses a suite may have for a PATCH to set `to`: `to` itself (no change) and those that may become it. */
export function statusesAllowedBefore(to: SuiteStatus): SuiteStatus[] {
  return [to, ...SUITE_STATUSES.filter((from) => ALLOWED_TRANSITIONS[from].includes(to))];
}
