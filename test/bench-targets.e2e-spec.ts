import { checkMirroredOperations, checkTargets, mirroredOperations, summarize, type Run, type ScenarioSummary } from '../bench/results';
import { isServiceOnly, SCENARIOS, type ScenarioName } from '../bench/scenarios';
import { WRITE_SCENARIOS } from '../bench/settings';

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

describe('bench targets: ratios against the lean baseline', () => {
  const summary = (scenario: ScenarioName, ratios: { throughputRatio: number; p99Ratio: number; cpuRatio: number }): ScenarioSummary => {
    const side = { requestsPerSecond: 100, p50Ms: 1, p99Ms: 2, cpuUsPerRequest: 100, databaseCpuUsPerRequest: 50, non2xx: 0, errors: 0, rssAfterMiB: 100 };
    return { scenario, title: scenario, runs: 1, pairs: 1, service: side, lean: side, databaseCpuRatio: 1, ...ratios };
  };
  const ratioChecks = (scenario: ScenarioName, ratios: { throughputRatio: number; p99Ratio: number; cpuRatio: number }) =>
    checkTargets([summary(scenario, ratios)], {}, undefined, [])
      .filter((check) => check.what.startsWith(`${scenario}: `) && / service \/ lean$/.test(check.what))
      .map((check) => [check.what.slice(scenario.length + 2), check.target, check.ok]);

  it('holds every write scenario to at least the lean\'s throughput and at most 1.5× its CPU per request and p99', () => {
    for (const scenario of WRITE_SCENARIOS) {
      expect(ratioChecks(scenario, { throughputRatio: 1, p99Ratio: 1.5, cpuRatio: 1.5 })).toEqual([
        ['throughput service / lean', '≥ 1', true],
        ['p99 service / lean', '≤ 1.5', true],
        ['CPU per request service / lean', '≤ 1.5', true],
      ]);
      expect(ratioChecks(scenario, { throughputRatio: 0.99, p99Ratio: 1.51, cpuRatio: 1.51 }).map(([, , ok]) => ok)).toEqual([false, false, false]);
    }
  });

  it('keeps the reads\' targets: at least 0.6 of the lean\'s throughput, at most 2× its CPU per request and p99', () => {
    const reads = SCENARIOS.map((scenario) => scenario.name).filter((name) => !WRITE_SCENARIOS.includes(name) && !isServiceOnly(name));
    expect(reads).toEqual(expect.arrayContaining(['metering', 'get-department', 'list-departments']));
    for (const scenario of reads) {
      expect(ratioChecks(scenario, { throughputRatio: 0.6, p99Ratio: 2, cpuRatio: 2 })).toEqual([
        ['throughput service / lean', '≥ 0.6', true],
        ['p99 service / lean', '≤ 2', true],
        ['CPU per request service / lean', '≤ 2', true],
      ]);
      expect(ratioChecks(scenario, { throughputRatio: 0.59, p99Ratio: 2.01, cpuRatio: 2.01 }).map(([, , ok]) => ok)).toEqual([false, false, false]);
    }
  });

  it('misses a ratio that could not be measured', () => {
    expect(ratioChecks('create', { throughputRatio: NaN, p99Ratio: NaN, cpuRatio: NaN }).map(([, , ok]) => ok)).toEqual([false, false, false]);
  });
});

describe('bench targets: directory writes beside the writes they mirror', () => {
  const summary = (scenario: ScenarioName, requestsPerSecond: number): ScenarioSummary => {
    const side = { requestsPerSecond, p50Ms: 1, p99Ms: 2, cpuUsPerRequest: 100, databaseCpuUsPerRequest: 50, non2xx: 0, errors: 0, rssAfterMiB: 100 };
    return { scenario, title: scenario, runs: 1, pairs: 1, service: side, lean: side, throughputRatio: 1, p99Ratio: 1, cpuRatio: 1, databaseCpuRatio: 1 };
  };
  const counted = (request: string, statements: number) => ({ request, status: 200, statements, connections: 1 });
  const statements = [counted('POST /departments (new key)', 5), counted('PATCH /departments/{id} (move)', 4)];

  it('is met within 10 % of the mirrored write\'s throughput and with no more statements, and missed below or above', () => {
    const checks = (moveRate: number, moveStatements: number) =>
      checkMirroredOperations(mirroredOperations([summary('create', 400), summary('move', moveRate)], [statements[0], counted('PATCH /departments/{id} (move)', moveStatements)]));
    expect(checks(360, 4).map((check) => [check.measured, check.target, check.ok])).toEqual([
      ['0.90', '≥ 0.9', true],
      ['4', '≤ 5', true],
    ]);
    expect(checks(359, 5).map((check) => check.ok)).toEqual([false, true]);
    expect(checks(500, 6).map((check) => check.ok)).toEqual([true, false]);
  });

  it('leaves out writes whose mirrored scenario did not run, and misses statements that were not counted', () => {
    expect(mirroredOperations([summary('move', 400)], statements)).toEqual([]);
    const [, statementCheck] = checkMirroredOperations(mirroredOperations([summary('create', 400), summary('move', 400)], []));
    expect(statementCheck).toMatchObject({ measured: 'n/a', ok: false });
  });
});

describe('bench targets: SCIM beside the REST operations it mirrors', () => {
  const summary = (scenario: ScenarioName, requestsPerSecond: number, non2xx = 0): ScenarioSummary => {
    const side = { requestsPerSecond, p50Ms: 1, p99Ms: 2, cpuUsPerRequest: 100, databaseCpuUsPerRequest: 50, non2xx, errors: 0, rssAfterMiB: 100 };
    const lean = { ...side, requestsPerSecond: NaN, non2xx: 0 };
    return { scenario, title: scenario, runs: 1, pairs: 0, service: side, lean, throughputRatio: NaN, p99Ratio: NaN, cpuRatio: NaN, databaseCpuRatio: NaN };
  };

  it('holds a SCIM lookup to 85 % of the REST lookup\'s throughput', () => {
    const throughputCheck = (scimRate: number) => checkMirroredOperations(mirroredOperations([summary('user-lookup', 1000), summary('scim-lookup', scimRate)], []))[0];
    expect(throughputCheck(850)).toMatchObject({ measured: '0.85', target: '≥ 0.85', ok: true });
    expect(throughputCheck(849).ok).toBe(false);
  });

  it('holds a SCIM PATCH to the REST PATCH\'s statements', () => {
    const statements = (scimStatements: number) => [
      { request: 'PATCH /users/{id}', status: 200, statements: 1, connections: 1 },
      { request: 'PATCH /scim/v2/Users/{id}', status: 200, statements: scimStatements, connections: 1 },
    ];
    const checks = (scimStatements: number) =>
      checkMirroredOperations(mirroredOperations([summary('user-patch', 1000), summary('scim-patch', 900)], statements(scimStatements))).map((check) => [check.what, check.ok]);
    expect(checks(1)).toEqual([
      ['scim-patch: service throughput, against user-patch', true],
      ['PATCH /scim/v2/Users/{id}: statements per request, against user-patch', true],
    ]);
    expect(checks(2).map(([, ok]) => ok)).toEqual([true, false]);
  });

  it('takes the ratio of the runs paired with the mirrored operation\'s where there are some, the mirrored scenario run or not', () => {
    const mirror = summary('user-lookup', 1000).service;
    const interleaved = { ...summary('scim-lookup', 800), interleavedMirror: { service: mirror, throughputRatio: 0.9 } };
    for (const summaries of [[interleaved], [summary('user-lookup', 2000), interleaved]]) {
      const [operation] = mirroredOperations(summaries, []);
      expect({ ratio: operation.throughputRatio, mirrored: operation.mirroredService.requestsPerSecond }).toEqual({ ratio: 0.9, mirrored: 1000 });
      expect(checkMirroredOperations([operation])[0]).toMatchObject({ measured: '0.90', ok: true });
    }
  });

  it('pairs each run of the service with the mirrored operation\'s run of the same pair: the median of those ratios', () => {
    const run = (pair: number, requestsPerSecond: number): Run => ({
      side: 'service',
      pair,
      load: { requests: requestsPerSecond * 5, durationSeconds: 5, requestsPerSecond, p50Ms: 1, p99Ms: 2, non2xx: 0, errors: 0, statusCounts: { 200: requestsPerSecond * 5 } },
      cpuUsPerRequest: 100,
      databaseCpuUsPerRequest: 50,
    });
    // The medians of each side alone would give 800 / 1000; the pairs' ratios are 0.8, 1.0 and 0.95.
    const summarized = summarize({ scenario: 'scim-lookup', runs: [run(0, 800), run(1, 700), run(2, 950)], mirrorRuns: [run(0, 1000), run(1, 700), run(2, 1000)], rssAfterMiB: {} });
    // A scenario with a lean side: only the service's runs are set against the mirror's.
    const lean = { ...run(0, 5000), side: 'lean' as const };
    expect(summarize({ scenario: 'user-patch', runs: [run(0, 900), lean], mirrorRuns: [run(0, 1000)], rssAfterMiB: {} }).interleavedMirror?.throughputRatio).toBe(0.9);
    expect(summarized.interleavedMirror).toMatchObject({ throughputRatio: 0.95, service: { requestsPerSecond: 1000 } });
    expect(summarize({ scenario: 'scim-lookup', runs: [run(0, 800)], rssAfterMiB: {} }).interleavedMirror).toBeUndefined();
  });

  it('checks a scenario without a lean counterpart for its failures only, never against a lean side it did not run', () => {
    const checksOf = (non2xx: number) => checkTargets([summary('scim-patch', 500, non2xx)], {}, undefined, []).filter((check) => check.what.startsWith('scim-patch'));
    expect(checksOf(0).map((check) => [check.what, check.ok])).toEqual([['scim-patch: service non-2xx + errors', true]]);
    expect(checksOf(3).map((check) => check.ok)).toEqual([false]);
  });
});
