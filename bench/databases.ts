import { createHash, randomInt, randomUUID } from 'node:crypto';
import { Client } from 'pg';

const ALL_SCOPES = ['admin.v1.user-directory.read', 'admin.v1.user-directory.manage', 'admin.v1.expert-suites.manage', 'admin.v1.quota.read', 'admin.v1.scim.provision'];
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// On the 31st, so that next_reset_at exercises the month-end clamp.
const SUBSCRIPTION_ANCHOR = '2026-01-31T09:30:00.000Z';

export interface Tenant {
  organizationId: string;
  token: string;
}

/**
 * The data both sides get, identical: one organization with its suites and top-level departments
 * (orders 1…n, for the reads), and one organization per create run.
 */
export interface Fixture {
  main: Tenant;
  suiteIds: string[];
  departmentIds: string[];
  /** Users of the main organization, each a member of one department (the PATCH scenario's). */
  userIds: string[];
  createTenants: Tenant[];
}

export function makeFixture(suiteCount: number, departmentCount: number, createTenantCount: number): Fixture {
  const tenant = (): Tenant => ({ organizationId: randomUUID(), token: newToken() });
  return {
    main: tenant(),
    suiteIds: Array.from({ length: suiteCount }, () => randomUUID()),
    departmentIds: Array.from({ length: departmentCount }, () => randomUUID()),
    userIds: Array.from({ length: departmentCount }, () => randomUUID()),
    createTenants: Array.from({ length: createTenantCount }, tenant),
  };
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withClient<T>(connectionString: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function serverVersion(serverUrl: string): Promise<string> {
  return withClient(serverUrl, async (client) => (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v);
}

/** Inserts the fixture with plain SQL, as AdminService would: every organization with its subscription. */
export async function seed(connectionString: string, fixture: Fixture): Promise<void> {
  const tenants = [fixture.main, ...fixture.createTenants];
  const organizationIds = tenants.map((tenant) => tenant.organizationId);
  await withClient(connectionString, async (client) => {
    await client.query('BEGIN');
    await client.query(`INSERT INTO organizations (id, name) SELECT id, 'Bench ' || id FROM unnest($1::uuid[]) AS id`, [organizationIds]);
    await client.query(`INSERT INTO subscriptions (id, organization_id, anchor_at) SELECT gen_random_uuid(), id, $2 FROM unnest($1::uuid[]) AS id`, [
      organizationIds,
      SUBSCRIPTION_ANCHOR,
    ]);
    await client.query(
      `INSERT INTO api_keys (id, organization_id, key_hash, key_prefix, scopes)
       SELECT gen_random_uuid(), organization_id, key_hash, key_prefix, $4 FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(organization_id, key_hash, key_prefix)`,
      [organizationIds, tenants.map((tenant) => sha256Hex(tenant.token)), tenants.map((tenant) => tenant.token.slice(0, 10)), ALL_SCOPES],
    );
    await client.query(
      `INSERT INTO expert_suites (id, organization_id, name, display_name)
       SELECT id, $2, 'bench-suite-' || n, 'Bench suite ' || n FROM unnest($1::uuid[]) WITH ORDINALITY AS s(id, n)`,
      [fixture.suiteIds, fixture.main.organizationId],
    );
    await client.query(`INSERT INTO market_items (id, organization_id, suite_id) SELECT gen_random_uuid(), $2, id FROM unnest($1::uuid[]) AS id`, [
      fixture.suiteIds,
      fixture.main.organizationId,
    ]);
    await client.query(
      `INSERT INTO departments (id, organization_id, name, external_id, "order", created_at, updated_at)
       SELECT id, $2, 'Bench department ' || n, 'bench-' || n, n, $3, $3 FROM unnest($1::uuid[]) WITH ORDINALITY AS d(id, n)`,
      // One creation time on both sides, so that the parity probes compare equal answers.
      [fixture.departmentIds, fixture.main.organizationId, SUBSCRIPTION_ANCHOR],
    );
    await client.query('UPDATE organizations SET last_top_level_order = $2 WHERE id = $1', [fixture.main.organizationId, fixture.departmentIds.length]);
    // A checkout from before the users module (BENCH_AGAINST an earlier commit) has no users to seed.
    const { rows } = await client.query<{ has_users: boolean }>(`SELECT to_regclass('users') IS NOT NULL AS has_users`);
    if (rows[0].has_users) await seedUsers(client, fixture);
    await client.query('COMMIT');
  });
}

/** The users of the user scenarios, each a member of one bench department, which is its primary. */
async function seedUsers(client: Client, fixture: Fixture): Promise<void> {
  await client.query(
    `INSERT INTO users (id, organization_id, user_name, user_name_key) SELECT id, $2, 'bench-user-' || n, 'bench-user-' || n FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`,
    [fixture.userIds, fixture.main.organizationId],
  );
  await client.query(
    `INSERT INTO department_members (organization_id, department_id, user_id) SELECT $3, d, u FROM unnest($1::uuid[], $2::uuid[]) AS t(u, d)`,
    [fixture.userIds, fixture.departmentIds, fixture.main.organizationId],
  );
  await client.query(
    `UPDATE users SET primary_department_id = m.department_id FROM department_members m WHERE m.user_id = users.id AND users.organization_id = $1`,
    [fixture.main.organizationId],
  );
}

function newToken(): string {
  let token = 'wsk_';
  for (let i = 0; i < 40; i++) token += BASE62[randomInt(BASE62.length)];
  return token;
}

function sha256Hex(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
