import { WaitingStatements } from './deadline-client';
import { waitingStatementsLimit } from './postgres-pool';

describe('WaitingStatements', () => {
  it('lets at most its limit wait at once, and one more once one has left', () => {
    const waiting = new WaitingStatements(2, 250);
    expect([waiting.enter(), waiting.enter(), waiting.enter()]).toEqual([true, true, false]);
    waiting.leave();
    expect([waiting.enter(), waiting.enter()]).toEqual([true, false]);
  });

  it('keeps a quarter of the pool (rounded up, at least one connection where there are two) from waiting statements', () => {
    expect([1, 2, 4, 8, 10, 100].map(waitingStatementsLimit)).toEqual([1, 1, 3, 6, 7, 75]);
  });
});
