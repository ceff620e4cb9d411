/** Something in flight that must be acted on once `performance.now()` reaches `dueAt`. */
export interface Due {
  /** May move later from `onDue`, for a deadline with several stages. */
  dueAt: number;
  onDue(now: number): void;
}

/**
 * One interval timer for the deadlines of every statement in flight, instead of a timer armed and
 * cleared per statement: almost every statement ends long before its deadline, so arming a timer
 * for each was pure cost (a Timeout object, a timer-list insert and removal). A deadline is acted
 * on up to `intervalMs` late. The timer runs only while something is tracked: the first sweep that
 * finds nothing stops it, so an idle process does not wake up.
 */
export class DeadlineSweeper {
  private readonly tracked = new Set<Due>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {}

  track(due: Due): void {
    this.tracked.add(due);
    // Unref'd: a statement in flight keeps the process alive through its socket, not through this.
    this.timer ??= setInterval(() => this.sweep(performance.now()), this.intervalMs).unref();
  }

  untrack(due: Due): void {
    this.tracked.delete(due);
  }

  /** Acts on every tracked deadline that is due by `now`; the interval calls it. */
  sweep(now: number): void {
    if (this.tracked.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const due of this.tracked) if (due.dueAt <= now) due.onDue(now);
  }

  get running(): boolean {
    return this.timer !== undefined;
  }
}

/** The process's one sweeper of statement deadlines (DeadlineClient): 10 ms is far below any limit it keeps. */
export const statementDeadlines = new DeadlineSweeper(10);
