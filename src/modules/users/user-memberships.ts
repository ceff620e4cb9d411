/**
 * The membership rules of a user change, in code: the service checks a body against them, and
 * explains with them why a PATCH statement wrote nothing. UsersRepository.update computes the
 * same in SQL (its `next` CTE); the e2e tests hold the two to each other.
 */

/** The memberships after `wanted` replaces `stored`: the kept ones in the order they were added, then the new ones in the order sent. */
export function nextDepartmentIds(stored: readonly string[], wanted: readonly string[] | undefined): string[] {
  if (wanted === undefined) return [...stored];
  const wantedSet = new Set(wanted);
  const storedSet = new Set(stored);
  return [...stored.filter((id) => wantedSet.has(id)), ...wanted.filter((id) => !storedSet.has(id))];
}

/**
 * The primary department after a change: the one sent (undefined: none sent); else the stored
 * one while it stays a membership; else the earliest-added remaining membership (null when none).
 */
export function nextPrimary(storedPrimary: string | null, departmentIds: readonly string[], sent: string | null | undefined): string | null {
  if (sent !== undefined) return sent;
  if (storedPrimary !== null && departmentIds.includes(storedPrimary)) return storedPrimary;
  return departmentIds[0] ?? null;
}

/** Whether `primary` may stand beside `departmentIds`: one of them, or null exactly when there are none. */
export function primaryFits(primary: string | null, departmentIds: readonly string[]): boolean {
  return primary === null ? departmentIds.length === 0 : departmentIds.includes(primary);
}
