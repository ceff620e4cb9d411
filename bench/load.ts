import { performance } from 'node:perf_hooks';

export interface Scenario {
  name: string;
  requests: number;
  concurrency: number;
  /** Sends request number `i`; resolves with the HTTP status. */
  send: (i: number) => Promise<number>;
  expectedStatus: number;
}

export interface ScenarioResult {
  name: string;
  requests: number;
  unexpected: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/** Runs `requests` calls with at most `concurrency` in flight and measures each one. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const latencies: number[] = [];
  let unexpected = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < scenario.requests) {
      const i = next++;
      const t0 = performance.now();
      const status = await scenario.send(i);
      latencies.push(performance.now() - t0);
      if (status !== scenario.expectedStatus) unexpected++;
    }
  };
  await Promise.all(Array.from({ length: scenario.concurrency }, worker));
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  return {
    name: scenario.name,
    requests: scenario.requests,
    unexpected,
    requestsPerSecond: round(scenario.requests / elapsedSeconds),
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
