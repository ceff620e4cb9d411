import { writeInOneStatement } from './one-statement-write';

describe('writeInOneStatement', () => {
  const lockedRuns: string[] = [];
  const underLock = async <T>(work: () => Promise<T>) => {
    lockedRuns.push('lock');
    return work();
  };
  beforeEach(() => lockedRuns.splice(0));

  it('answers the first attempt when it wrote or explained, without the lock', async () => {
    expect(await writeInOneStatement(async () => 'written', underLock)).toBe('written');
    expect(lockedRuns).toEqual([]);
  });

  it('runs once more under the lock when the first attempt stood down', async () => {
    const answers = [undefined, 'written under the lock'];
    expect(await writeInOneStatement(async () => answers.shift(), underLock)).toBe('written under the lock');
    expect(lockedRuns).toEqual(['lock']);
  });

  it('passes a refusal through, and fails loudly when the attempt stands down even under the lock', async () => {
    await expect(writeInOneStatement(async () => Promise.reject(new Error('refused')), underLock)).rejects.toThrow('refused');
    await expect(writeInOneStatement(async () => undefined, underLock)).rejects.toThrow(/stood down with its row locked/);
    expect(lockedRuns).toEqual(['lock']);
  });
});
