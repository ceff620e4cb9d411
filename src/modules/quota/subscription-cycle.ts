/**
 * Monthly subscription cycles (docs/metering-policy.md).
 *
 * The resets of a subscription are the anchor itself and, every month after it, the same
 * day-of-month and time of day (UTC). A month too short for the anchor's day resets on its last
 * day instead; every reset is computed from the anchor, never from the previous reset, so a
 * short month does not make later resets drift (anchor Jan 31: Feb 28, then Mar 31).
 */
export function nextResetAfter(anchor: Date, now: Date): Date {
  if (anchor.getTime() > now.getTime()) return anchor;
  const monthsSinceAnchor =
    (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  const resetThisMonth = resetInMonth(anchor, monthsSinceAnchor);
  return resetThisMonth.getTime() > now.getTime() ? resetThisMonth : resetInMonth(anchor, monthsSinceAnchor + 1);
}

/** The reset `monthsAfterAnchor` calendar months after the anchor's month (0 is the anchor). */
function resetInMonth(anchor: Date, monthsAfterAnchor: number): Date {
  const monthIndex = anchor.getUTCMonth() + monthsAfterAnchor;
  const year = anchor.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const reset = new Date(anchor.getTime());
  // setUTCFullYear with all three parts at once: setting them one by one could roll over
  // (Jan 31 -> set month Feb -> Mar 3) and would map years 0-99 to 1900-1999 via Date.UTC.
  reset.setUTCFullYear(year, month, day);
  return reset;
}

function daysInMonth(year: number, month: number): number {
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month + 1, 0);
  return lastDay.getUTCDate();
}
