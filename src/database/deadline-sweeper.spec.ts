import { DeadlineSweeper, type Due } from './deadline-sweeper';

function dueAt(at: number, onDue: (due: Due, now: number) => void = () => undefined): Due & { calls: number[] } {
  const calls: number[] = [];
  const due = {
    dueAt: at,
    calls,
    onDue(now: number) {
      calls.push(now);
      onDue(due, now);
    },
  };
  return due;
}

describe('DeadlineSweeper', () => {
  it('acts on each tracked deadline once it is due, and not before', () => {
    const sweeper = new DeadlineSweeper(10);
    const soon = dueAt(100, (due) => (due.dueAt = Infinity));
    const later = dueAt(300, (due) => (due.dueAt = Infinity));
    sweeper.track(soon);
    sweeper.track(later);
    sweeper.sweep(99);
    sweeper.sweep(105);
    sweeper.sweep(299);
    sweeper.sweep(310);
    expect([soon.calls, later.calls]).toEqual([[105], [310]]);
    sweeper.untrack(soon);
    sweeper.untrack(later);
    sweeper.sweep(400);
  });

  it('lets a deadline move itself later (a second stage) and acts on it again then', () => {
    const sweeper = new DeadlineSweeper(10);
    const staged = dueAt(100, (due, now) => (due.dueAt = now < 200 ? 500 : Infinity));
    sweeper.track(staged);
    for (const now of [110, 300, 510, 600]) sweeper.sweep(now);
    expect(staged.calls).toEqual([110, 510]);
    sweeper.untrack(staged);
    sweeper.sweep(700);
  });

  it('never acts on an untracked deadline (the statement ended first)', () => {
    const sweeper = new DeadlineSweeper(10);
    const ended = dueAt(100);
    sweeper.track(ended);
    sweeper.untrack(ended);
    sweeper.sweep(1000);
    expect(ended.calls).toEqual([]);
  });

  it('runs its timer only while something is tracked: the first sweep that finds nothing stops it', () => {
    const sweeper = new DeadlineSweeper(10);
    const due = dueAt(100);
    const second = dueAt(200);
    expect(sweeper.running).toBe(false);
    sweeper.track(due);
    sweeper.track(second);
    expect(sweeper.running).toBe(true);
    sweeper.untrack(due);
    sweeper.sweep(50);
    expect(sweeper.running).toBe(true);
    sweeper.untrack(second);
    sweeper.sweep(60);
    expect(sweeper.running).toBe(false);
    const other = new DeadlineSweeper(10);
    other.track(due);
    other.untrack(due);
    other.sweep(50);
    expect(other.running).toBe(false);
    other.track(due);
    expect(other.running).toBe(true);
    other.untrack(due);
    other.sweep(60);
    expect(other.running).toBe(false);
  });

  it('sweeps on its own timer', async () => {
    const sweeper = new DeadlineSweeper(5);
    const at = performance.now() + 20;
    const due = dueAt(at, (d) => (d.dueAt = Infinity));
    sweeper.track(due);
    await new Promise((resolve) => setTimeout(resolve, 80));
    sweeper.untrack(due);
    expect(due.calls).toHaveLength(1);
    expect(due.calls[0]).toBeGreaterThanOrEqual(at);
  });
});
