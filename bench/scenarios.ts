/** The benchmark's scenarios, shared by the runner (names, descriptions) and the load generator. */
export const SCENARIOS = [
  { name: 'metering', title: 'GET metering-policy', description: 'authentication + the cached policy of one organization' },
  { name: 'patch-hot', title: 'PATCH one hot suite', description: 'a new display_name each request, every connection on the same suite row' },
  { name: 'patch-spread', title: 'PATCH spread over 100 suites', description: 'a new display_name each request, suites taken in turn' },
  { name: 'create', title: 'POST department', description: 'a fresh Idempotency-Key and name each request, top level of a fresh organization per run' },
  { name: 'replay', title: 'POST department replay', description: 'the same Idempotency-Key and body each request: a 201 replay' },
  { name: 'get-department', title: 'GET department', description: 'one department by id, 100 departments taken in turn' },
  {
    name: 'move',
    title: 'PATCH department move',
    description: 'moves one of 99 top-level departments under the first and the next request back to the top level, departments taken in turn',
  },
  { name: 'list-departments', title: 'GET departments (a page)', description: 'the first page of 20 of 100 top-level departments, with its next_page_token' },
  { name: 'user-create', title: 'POST user', description: 'a fresh Idempotency-Key and user_name each request, a member of one of 100 departments taken in turn' },
  { name: 'user-patch', title: 'PATCH spread over 100 users', description: 'a new display_name each request, users taken in turn' },
  {
    name: 'member',
    title: 'PUT member, then DELETE it',
    description: 'each connection adds a user to a second department (201) and removes it again (204), users taken in turn',
  },
  { name: 'user-lookup', title: 'GET users by user_name', description: 'the users list filtered by one user_name, users taken in turn', serviceOnly: true },
  {
    name: 'scim-lookup',
    title: 'SCIM GET Users by userName',
    description: 'GET /scim/v2/Users?filter=userName eq "…", users taken in turn, as a provider looks a user up',
    serviceOnly: true,
  },
  {
    name: 'scim-patch',
    title: 'SCIM PATCH spread over 100 users',
    description: 'a PatchOp replacing displayName each request, users taken in turn',
    serviceOnly: true,
  },
] as const satisfies readonly { name: string; title: string; description: string; serviceOnly?: true }[];

/**
 * Scenarios the lean baseline has no counterpart for (SCIM, and the REST lookup the SCIM one is
 * compared with): the service alone runs them, and they are judged against their mirrored scenario.
 */
export function isServiceOnly(name: ScenarioName): boolean {
  return SCENARIOS.some((scenario) => scenario.name === name && 'serviceOnly' in scenario);
}

export type ScenarioName = (typeof SCENARIOS)[number]['name'];

/** What the load generator process is asked to run (JSON on its stdin). */
export interface LoadJob {
  baseUrl: string;
  scenario: ScenarioName;
  token: string;
  suiteIds: string[];
  departmentIds: string[];
  userIds: string[];
  /** Makes this run's names and keys differ from every other run's. */
  runTag: string;
  durationSeconds: number;
  connections: number;
}

/** What it prints back as JSON on stdout. */
export interface LoadResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  statusCounts: Record<string, number>;
}

export const REPLAY_KEY = 'bench-replay';
export const REPLAY_BODY = JSON.stringify({ name: 'Replayed department' });
