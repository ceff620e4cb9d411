import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { AppConfig } from '../src/config/app-config';
import { type Database, openDatabase } from '../src/database/database';
import { createTenant, openTestDatabase, startTestApp, testConfig, testDatabaseUrl, type TestApp, type TestTenant } from './support/test-app';

// The department tree under concurrent moves, creates and deletes sent to two instances at once
// (docs/directory.md, "Locking"). On the embedded database and PostgreSQL; with PGBOUNCER_URL set
// (.ci/run's pooler step), the instances' pooled connections go through PgBouncer in transaction
// mode, as in test/pooler.e2e-spec.ts.
const POOLER = process.env.PGBOUNCER_URL || undefined;
const PATH = '/api/openapi/v1/departments';
const MAX_LEVEL = 32;

describe(`the department tree under concurrent writes on two instances${POOLER ? ', through PgBouncer' : ''}`, () => {
  let direct: Database;
  let databases: Database[] = [];
  let instances: TestApp[];
  let tenant: TestTenant;

  beforeAll(async () => {
    direct = await openTestDatabase();
    if (POOLER) {
      const server = testDatabaseUrl();
      if (!server) throw new Error('TEST_DATABASE_URL is needed: the pooler stands in front of PostgreSQL');
      const pooled = new URL(POOLER);
      pooled.pathname = new URL(server).pathname;
      const settings: Partial<AppConfig> = { DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: server, DATABASE_PREPARED_STATEMENTS: 0, DATABASE_POOL_SIZE: 4 };
      databases = await Promise.all([0, 1].map(() => openDatabase(testConfig(settings))));
      instances = await Promise.all(databases.map((database) => startTestApp(database, settings)));
    } else {
      instances = await Promise.all([0, 1].map(() => startTestApp(direct)));
    }
  });

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await Promise.all(databases.map((database) => database.close()));
    await direct?.close();
  });

  beforeEach(async () => {
    tenant = await createTenant(direct);
  });

  const via = (index: number) => instances[index % 2];
  const create = (name: string, parentId: string | null, index = 0) =>
    via(index).http().post(PATH).set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name, parent_id: parentId });
  const created = async (name: string, parentId: string | null = null): Promise<string> => {
    const response = await create(name, parentId);
    expect(response.status).toBe(201);
    return response.body.department_id;
  };
  const move = (id: string, parentId: string | null, index: number) => via(index).http().patch(`${PATH}/${id}`).set('Authorization', tenant.bearer).send({ parent_id: parentId });
  const statuses = (responses: Response[]) => responses.map((response) => `${response.status} ${response.body?.code ?? ''}`.trim());

  /** No cycle, every department reachable from the top level, its path the ids of its parent chain, no level past 32. */
  const expectConsistentTree = async () => {
    const rows = await direct.prisma.department.findMany({ where: { organizationId: tenant.organizationId } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const row of rows) {
      const chain: string[] = [];
      for (let current: typeof row | undefined = row; current; current = current.parentId ? byId.get(current.parentId) : undefined) {
        chain.unshift(current.id);
        if (chain.length > MAX_LEVEL) throw new Error(`department ${row.id} is below level ${MAX_LEVEL}, or on a cycle`);
      }
      expect(byId.get(chain[0])!.parentId).toBeNull();
      expect(row.path).toBe(chain.map((id) => `${id}/`).join(''));
    }
    return rows;
  };

  it('opposite moves (A under B, B under A) sent at once, 15 pairs: one of each pair wins, never a cycle', async () => {
    const pairs = await Promise.all(Array.from({ length: 15 }, async (_, index) => [await created(`A${index}`), await created(`B${index}`)]));
    const answers = await Promise.all(pairs.flatMap(([a, b], index) => [move(a, b, index), move(b, a, index + 1)]));
    for (let index = 0; index < pairs.length; index++) {
      expect(statuses(answers.slice(2 * index, 2 * index + 2)).sort()).toEqual(['200', '409 DEPARTMENT_CYCLE']);
    }
    await expectConsistentTree();
  });

  it('a ring of three moves (A under B, B under C, C under A) sent at once, 10 rings: at most two win, never a cycle', async () => {
    const rings = await Promise.all(Array.from({ length: 10 }, async (_, index) => [await created(`A${index}`), await created(`B${index}`), await created(`C${index}`)]));
    const answers = await Promise.all(rings.flatMap(([a, b, c], index) => [move(a, b, index), move(b, c, index + 1), move(c, a, index)]));
    for (let index = 0; index < rings.length; index++) {
      const ring = statuses(answers.slice(3 * index, 3 * index + 3));
      expect(ring.filter((status) => status === '200')).toHaveLength(2);
      expect(ring.filter((status) => status === '409 DEPARTMENT_CYCLE')).toHaveLength(1);
    }
    await expectConsistentTree();
  });

  it('creates racing a move that would take them past level 32: the limit holds, paths follow the move', async () => {
    let parent: string | null = null;
    for (let level = 1; level <= 30; level++) parent = await created(`L${level}`, parent);
    const deepest = parent!;
    for (let round = 0; round < 3; round++) {
      // X (level 1) with child Y: under L30, Y is level 32, and a child of Y would be 33.
      const x = await created(`X${round}`);
      const y = await created('Y', x);
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, (_, index) => create(`Z${index}`, y, index)),
        move(x, deepest, round),
        ...Array.from({ length: 8 }, (_, index) => create(`W${index}`, y, index + 1)),
      ]);
      const moved = answers[8];
      const creates = statuses([...answers.slice(0, 8), ...answers.slice(9)]);
      if (moved.status === 200) {
        // Creates that ran before the move would have made it too deep: so all ran after it, and were refused.
        expect(creates).toEqual(Array(16).fill('422 DEPARTMENT_TOO_DEEP'));
      } else {
        expect(statuses([moved])).toEqual(['422 DEPARTMENT_TOO_DEEP']);
        expect(creates.filter((status) => status === '201').length).toBeGreaterThan(0);
        expect(creates.every((status) => status === '201')).toBe(true);
      }
    }
    const rows = await expectConsistentTree();
    expect(Math.max(...rows.map((row) => row.path.length / 37))).toBeLessThanOrEqual(MAX_LEVEL);
  });

  it('a delete racing a create under it, 20 times: one or the other, never a child of a deleted department', async () => {
    const parents = await Promise.all(Array.from({ length: 20 }, (_, index) => created(`P${index}`)));
    const answers = await Promise.all(
      parents.flatMap((parent, index) => [via(index).http().delete(`${PATH}/${parent}`).set('Authorization', tenant.bearer), create('Child', parent, index + 1)]),
    );
    for (let index = 0; index < parents.length; index++) {
      const [deleted, child] = statuses(answers.slice(2 * index, 2 * index + 2));
      expect([deleted, child]).toEqual(deleted === '204' ? ['204', '422 PARENT_NOT_FOUND'] : ['409 DEPARTMENT_NOT_EMPTY', '201']);
    }
    const rows = await expectConsistentTree();
    const survivors = new Set(rows.map((row) => row.id));
    for (let index = 0; index < parents.length; index++) {
      expect(survivors.has(parents[index])).toBe(answers[2 * index].status !== 204);
    }
  });
});
