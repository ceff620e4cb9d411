import autocannon = require('autocannon');
import { REPLAY_BODY, REPLAY_KEY, type LoadJob, type LoadResult } from './scenarios';

type RawRequest = autocannon.RawRequest;

const SCIM_PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

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
    requests: requestBuilders(job).map((setupRequest) => ({ setupRequest })),
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

type RequestBuilder = (request: RawRequest, context: Record<string, unknown>) => RawRequest;

/** The requests each connection sends in turn: one for most scenarios, a pair where the second needs the first (member). */
function requestBuilders(job: LoadJob): RequestBuilder[] {
  if (job.scenario !== 'member') return [requestBuilder(job)];
  const api = '/api/openapi/v1';
  // User u is seeded a member of department u; the pair adds it to department u + 1 and removes it
  // again on the same connection, in order. Users are taken in turn: 100 users outnumber the connections.
  const memberPath = (u: number) => `${api}/departments/${job.departmentIds[(u + 1) % job.departmentIds.length]}/members/${job.userIds[u]}`;
  let n = 0;
  return [
    (request, context) => {
      context.user = n++ % job.userIds.length;
      return { ...request, method: 'PUT', path: memberPath(context.user as number) };
    },
    (request, context) => ({ ...request, method: 'DELETE', path: memberPath(context.user as number) }),
  ];
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
    case 'move':
      // Request 2k moves a department under the first one, request 2k + 1 moves it back: a move each time (a repeat is a no-op).
      return (request) => {
        const i = n++;
        const departmentId = job.departmentIds[1 + (Math.floor(i / 2) % (job.departmentIds.length - 1))];
        const body = JSON.stringify({ parent_id: i % 2 === 0 ? job.departmentIds[0] : null });
        return { ...request, method: 'PATCH', path: `${api}/departments/${departmentId}`, body };
      };
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
    case 'user-lookup':
      return (request) => ({ ...request, method: 'GET', path: `${api}/users?user_name=${benchUserName(n++)}` });
    case 'scim-lookup':
      return (request) => ({ ...request, method: 'GET', path: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${benchUserName(n++)}"`)}` });
    case 'scim-patch':
      return (request) => ({
        ...request,
        method: 'PATCH',
        path: `/scim/v2/Users/${job.userIds[n % job.userIds.length]}`,
        body: JSON.stringify({ schemas: [SCIM_PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: `${job.runTag} ${n++}` }] }),
      });
    case 'member':
      throw new Error('the member scenario sends a pair of requests (requestBuilders)');
  }

  /** The seeded users' names (bench/databases.ts), 1-based. */
  function benchUserName(i: number): string {
    return `bench-user-${(i % job.userIds.length) + 1}`;
  }

  function patchSuite(request: RawRequest, suiteId: string, displayName: string): RawRequest {
    return { ...request, method: 'PATCH', path: `${api}/expert-suites/${suiteId}`, body: JSON.stringify({ display_name: displayName }) };
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`load generator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
