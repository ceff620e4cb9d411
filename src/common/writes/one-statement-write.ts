/**
 * A write done as one statement that writes only while every rule holds and its row is at the
 * revision its own snapshot read (docs/adr/0023-user-changes-as-one-snapshot-checked-statement.md).
 *
 * `attempt` runs the statement and, when it wrote nothing, explains why from the stored row: it
 * throws the broken rule's error, or answers the resource unchanged (a no-op), or returns
 * undefined when nothing explains it, which means the statement waited for another writer of the
 * row and stood down. It then runs once more inside `underLock` (a transaction that first locks
 * the row), where the statement's snapshot is taken after the lock and cannot be stale.
 */
export async function writeInOneStatement<T>(attempt: () => Promise<T | undefined>, underLock: (work: () => Promise<T>) => Promise<T>): Promise<T> {
  const first = await attempt();
  if (first !== undefined) return first;
  return underLock(async () => {
    const second = await attempt();
    // Every writer of the row changes its revision, so under the lock the snapshot is current.
    if (second === undefined) throw new Error('A one-statement write stood down with its row locked: a writer of the row left its revision unchanged');
    return second;
  });
}
