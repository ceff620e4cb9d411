import { canTransition, statusesAllowedBefore, SUITE_STATUSES, type SuiteStatus } from './suite-status';

describe('suite status transitions', () => {
  // from → to: allowed (docs/expert-suites.md). Staying put is not a transition.
  const table: Array<[SuiteStatus, SuiteStatus, boolean]> = [
    ['draft', 'published', true],
    ['draft', 'disabled', true],
    ['published', 'disabled', true],
    ['disabled', 'published', true],
    ['published', 'draft', false],
    ['disabled', 'draft', false],
    ['draft', 'draft', false],
    ['published', 'published', false],
    ['disabled', 'disabled', false],
  ];

  it.each(table)('%s → %s: %s', (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
  });

  it('refuses every change from a status it does not know', () => {
    for (const to of SUITE_STATUSES) expect(canTransition('archived', to)).toBe(false);
  });

  it('lists, for each target, the target itself and exactly the statuses that may become it (the UPDATE guard)', () => {
    for (const to of SUITE_STATUSES) {
      const expected = [to, ...table.filter(([, target, allowed]) => target === to && allowed).map(([from]) => from)];
      expect(statusesAllowedBefore(to).sort()).toEqual(expected.sort());
    }
  });
});
