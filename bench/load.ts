import autocannon = require('autocannon');
import { REPLAY_BODY, REPLAY_KEY, type LoadJob, type LoadResult } from './scenarios';

type RawRequest = autocannon.RawRequest;

/**
 * The load generator, in its own process so that its CPU is not the server's: reads a LoadJob
 * as JSON on stdin (not in its arguments, which any user can list), runs autocannon and prints
 * a LoadResult as JSON.
 */
async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const job = JSON.parse(input) as LoadJob;
  const result = await autocannon({
    url: job.baseUrl,
    connections: job.connections,
    duration: job.durationSeconds,
    headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: requestBuilder(job) }],
  });
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]));
  const output: LoadResult = {
    requests: result.requests.total,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCounts,
  };
  process.stdout.write(JSON.stringify(output));
}

/** Fills in each request of the scenario; `n` counts this process's requests. */
function requestBuilder(job: LoadJob): (request: RawRequest) => RawRequest {
  const api = '/api/openapi/v1';
  let n = 0;
  switch (job.scenario) {
    case 'metering':
      return (request) => ({ ...request, method: 'GET', path: `${api}/metering-policy` });
    case 'patch-hot':
      return (request) => patchSuite(request, job.suiteIds[0], `${job.runTag} ${n++}`);
    case 'patch-spread':
      return (request) => patchSuite(request, job.suiteIds[n % job.suiteIds.length], `${job.runTag} ${n++}`);
    case 'create':
      return (request) => {
        const i = n++;
        const headers = { ...request.headers, 'idempotency-key': `${job.runTag}-${i}` };
        return { ...request, method: 'POST', path: `${api}/departments`, headers, body: JSON.stringify({ name: `Department ${job.runTag} ${i}` }) };
      };
    case 'replay':
      return (request) => {
        const headers = { ...request.headers, 'idempotency-key': REPLAY_KEY };
        return { ...request, method: 'POST', path: `${api}/departments`, headers, body: REPLAY_BODY };
      };
    case 'get-department':
      return (request) => ({ ...request, method: 'GET', path: `${api}/departments/${job.departmentIds[n++ % job.departmentIds.length]}` });
    case 'list-departments':
      return (request) => ({ ...request, method: 'GET', path: `${api}/departments?page_size=20` });
    case 'user-create':
      return (request) => {
        const i = n++;
        const headers = { ...request.headers, 'idempotency-key': `${job.runTag}-${i}` };
        const body = JSON.stringify({ user_name: `user ${job.runTag} ${i}`, department_ids: [job.departmentIds[i % job.departmentIds.length]] });
        return { ...request, method: 'POST', path: `${api}/users`, headers, body };
      };
    case 'user-patch':
      return (request) => ({
        ...request,
        method: 'PATCH',
        path: `${api}/users/${job.userIds[n % job.userIds.length]}`,
        body: JSON.stringify({ display_name: `${job.runTag} ${n++}` }),
      });
  }

  function patchSuite(request: RawRequest, suiteId: string, displayName: string): RawRequest {
    return { ...request, method: 'PATCH', path: `${api}/expert-suites/${suiteId}`, body: JSON.stringify({ display_name: displayName }) };
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`load generator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
