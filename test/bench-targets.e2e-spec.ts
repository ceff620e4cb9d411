import { checkTargets } from '../bench/results';

describe('bench targets: the service\'s peak RSS', () => {
  const memoryCheck = (peakRssMiB: { service?: number; lean?: number }) => {
    const check = checkTargets([], peakRssMiB, undefined, []).find((candidate) => candidate.what.startsWith('service peak RSS'));
    if (!check) throw new Error('no memory check');
    return check;
  };

  it('is met at or below the lean baseline\'s peak in the same run, and missed above it', () => {
    expect(memoryCheck({ service: 192, lean: 206 })).toMatchObject({ ok: true, measured: '192 MiB', target: '≤ 206 MiB' });
    expect(memoryCheck({ service: 206, lean: 206 }).ok).toBe(true);
    expect(memoryCheck({ service: 207, lean: 206 }).ok).toBe(false);
  });

  it('is missed when either side\'s peak was not measured', () => {
    expect(memoryCheck({ service: 150 }).ok).toBe(false);
    expect(memoryCheck({ lean: 206 }).ok).toBe(false);
  });
});
