export const SUITE_STATUSES = ['draft', 'published', 'disabled'] as const;
export type SuiteStatus = (typeof SUITE_STATUSES)[number];

/** CONTRACT.md section 5: the changes a PATCH may make to status. Staying put is not a change. */
const ALLOWED_TRANSITIONS: Record<SuiteStatus, readonly SuiteStatus[]> = {
  draft: ['published', 'disabled'],
  published: ['disabled'],
  disabled: ['published'],
};

export function canTransition(from: string, to: SuiteStatus): boolean {
  return (ALLOWED_TRANSITIONS[from as SuiteStatus] ?? []).includes(to);
}
