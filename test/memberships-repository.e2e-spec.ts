import { AuditStatements } from '../src/common/audit/audit-event';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { MembershipsRepository, USER_WITH_DEPARTMENTS, WIDE_SUBTREE_DEPARTMENTS, type MemberQuery } from '../src/modules/users/memberships.repository';
import type { UserFilters } from '../src/modules/users/users.repository';
import { createTenant, useTestDatabase } from './support/test-app';

const DEPARTMENTS = WIDE_SUBTREE_DEPARTMENTS + 200;

/**
 * The member pages of memberships.repository.ts on the test database, without HTTP: both plans of
 * a subtree's members (each department's next members merged, below WIDE_SUBTREE_DEPARTMENTS; the
 * organization's memberships walked in user order, from it on) page to the same users as a plain
 * DISTINCT over the subtree, each once.
 */
describe('memberships repository: member pages', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let repository: MembershipsRepository;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    repository = new MembershipsRepository(txHost, new AuditStatements('off'));
    organizationId = (await createTenant(fixture.database)).organizationId;
    // A 4-ary tree (department i's parent is (i - 2) / 4 + 1, parents inserted first: the trigger fills the paths),
    // 90 users, user k in departments 1 + (k * 13) % n and 1 + (k * 29) % n, users 0–39 also in department 2 (department 391 is a leaf: user 30's).
    await txHost.sql.execute(Prisma.sql`
      WITH ids AS (SELECT i, md5(${organizationId} || 'd' || i)::uuid AS id FROM generate_series(1, ${DEPARTMENTS}) i)
      INSERT INTO departments (id, organization_id, parent_id, name, "order")
      SELECT ids.id, ${organizationId}::uuid, parent.id, 'Department ' || ids.i, ids.i
      FROM ids LEFT JOIN ids parent ON parent.i = (ids.i - 2) / 4 + 1 AND ids.i > 1 ORDER BY ids.i`);
    await txHost.sql.execute(Prisma.sql`
      INSERT INTO users (id, organization_id, user_name, user_name_key)
      SELECT md5(${organizationId} || 'u' || k)::uuid, ${organizationId}::uuid, 'user' || k, 'user' || k FROM generate_series(0, 89) k`);
    await txHost.sql.execute(Prisma.sql`
      INSERT INTO department_members (organization_id, department_id, user_id)
      SELECT DISTINCT ${organizationId}::uuid, md5(${organizationId} || 'd' || d)::uuid, md5(${organizationId} || 'u' || k)::uuid FROM (
        SELECT k, 1 + (k * 13) % ${DEPARTMENTS} AS d FROM generate_series(0, 89) k
        UNION ALL SELECT k, 1 + (k * 29) % ${DEPARTMENTS} FROM generate_series(0, 89) k
        UNION ALL SELECT k, 2 FROM generate_series(0, 39) k) m`);
  });

  const idOf = async (index: number) =>
    (await txHost.sql.query<{ id: string }>(Prisma.sql`SELECT md5(${organizationId} || 'd' || ${index}::int)::uuid AS id`))[0].id;

  /** The subtree's (or the department's) members by a plain DISTINCT: what every plan must page through. */
  const expected = async (id: string, recursive: boolean) =>
    (
      await txHost.sql.query<{ userId: string }>(Prisma.sql`
        SELECT DISTINCT m.user_id AS "userId" FROM department_members m JOIN departments d ON d.organization_id = m.organization_id AND d.id = m.department_id
        WHERE m.organization_id = ${organizationId}::uuid AND (d.id = ${id}::uuid OR (${recursive} AND d.path LIKE (
          SELECT path FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid) || '%'))
        ORDER BY 1`)
    ).map((row) => row.userId);

  const paged = async (query: MemberQuery, pageSize: number) => {
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      const rows = await repository.usersOfDepartmentPage(USER_WITH_DEPARTMENTS, query, after, pageSize);
      ids.push(...rows.map((row) => row.id));
      if (rows.length < pageSize) return ids;
      after = rows[rows.length - 1].id;
    }
  };

  const subtreeSize = async (id: string) =>
    Number(
      (
        await txHost.sql.query<{ count: bigint }>(Prisma.sql`
          SELECT count(*) AS count FROM departments d, (SELECT path FROM departments WHERE id = ${id}::uuid) root
          WHERE d.organization_id = ${organizationId}::uuid AND d.path >= root.path AND d.path < root.path || '~'`)
      )[0].count,
    );

  it('pages each subtree to the users of a plain DISTINCT, on both plans, and direct members to the department\'s own', async () => {
    const cases = [
      { index: 1, recursive: true },
      { index: 2, recursive: true },
      { index: 2, recursive: false },
      { index: 7, recursive: true },
      { index: 391, recursive: true },
    ];
    const sizes: number[] = [];
    for (const { index, recursive } of cases) {
      const id = await idOf(index);
      if (recursive) sizes.push(await subtreeSize(id));
      const want = await expected(id, recursive);
      expect(want.length).toBeGreaterThan(0);
      for (const pageSize of [1, 7, 100]) {
        expect([index, recursive, pageSize, await paged({ organizationId, departmentId: id, recursive }, pageSize)]).toEqual([index, recursive, pageSize, want]);
      }
    }
    // The whole tree takes the membership walk, the others the per-department merge.
    expect(sizes[0]).toBe(DEPARTMENTS);
    expect(sizes.slice(1).every((size) => size < WIDE_SUBTREE_DEPARTMENTS)).toBe(true);
  });

  it('pages with the users list\'s other filters to the users a plain query keeps, on both subtree plans and for direct members', async () => {
    // Every third user inactive, every fourth with one email (in varied case), every fifth an external_id.
    await txHost.sql.execute(Prisma.sql`
      UPDATE users SET active = (substr(user_name, 5)::int % 3 <> 0),
        email = CASE WHEN substr(user_name, 5)::int % 4 = 0 THEN CASE WHEN substr(user_name, 5)::int % 8 = 0 THEN 'Shared@Example.com' ELSE 'shared@example.COM' END END,
        external_id = CASE WHEN substr(user_name, 5)::int % 5 = 0 THEN 'ext-' || substr(user_name, 5) END
      WHERE organization_id = ${organizationId}::uuid`);
    const plain = async (id: string, recursive: boolean, where: Prisma.Sql) =>
      (
        await txHost.sql.query<{ userId: string }>(Prisma.sql`
          SELECT DISTINCT m.user_id AS "userId" FROM department_members m
          JOIN departments d ON d.organization_id = m.organization_id AND d.id = m.department_id
          JOIN users u ON u.organization_id = m.organization_id AND u.id = m.user_id
          WHERE m.organization_id = ${organizationId}::uuid AND ${where} AND (d.id = ${id}::uuid OR (${recursive} AND d.path LIKE (
            SELECT path FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid) || '%'))
          ORDER BY 1`)
      ).map((row) => row.userId);
    const filterCases: [UserFilters, Prisma.Sql][] = [
      [{ active: false }, Prisma.sql`NOT u.active`],
      [{ active: true }, Prisma.sql`u.active`],
      [{ email: 'SHARED@example.com' }, Prisma.sql`lower(u.email) = 'shared@example.com'`],
      [{ email: 'shared@EXAMPLE.com', active: false }, Prisma.sql`lower(u.email) = 'shared@example.com' AND NOT u.active`],
      [{ userName: 'USER30' }, Prisma.sql`u.user_name = 'user30'`],
      [{ externalId: 'ext-30', active: true }, Prisma.sql`u.external_id = 'ext-30' AND u.active`],
      [{ externalId: 'EXT-30' }, Prisma.sql`false`],
    ];
    let nonEmpty = 0;
    for (const { index, recursive } of [
      { index: 1, recursive: true },
      { index: 2, recursive: true },
      { index: 2, recursive: false },
      { index: 391, recursive: true },
    ]) {
      const id = await idOf(index);
      for (const [filters, where] of filterCases) {
        const want = await plain(id, recursive, where);
        if (want.length > 0) nonEmpty++;
        for (const pageSize of [1, 7]) {
          const got = await paged({ organizationId, departmentId: id, recursive, filters }, pageSize);
          expect([index, recursive, filters, pageSize, got]).toEqual([index, recursive, filters, pageSize, want]);
        }
      }
    }
    // The cases exercise something: most of them keep users.
    expect(nonEmpty).toBeGreaterThanOrEqual(16);
  });

  it('reads nothing for an unknown department or another organization\'s, and lists a user\'s departments, one user\'s or a page\'s at once', async () => {
    const other = (await createTenant(fixture.database)).organizationId;
    const id = await idOf(1);
    for (const recursive of [true, false]) {
      expect(await repository.usersOfDepartmentPage(USER_WITH_DEPARTMENTS, { organizationId: other, departmentId: id, recursive }, undefined, 10)).toEqual([]);
    }
    const user = (await txHost.sql.query<{ id: string }>(Prisma.sql`SELECT md5(${organizationId} || 'u' || 3)::uuid AS id`))[0].id;
    const departments = await repository.departmentIdsOf(organizationId, user);
    expect([...departments].sort()).toEqual([await idOf(2), await idOf(1 + ((3 * 13) % DEPARTMENTS)), await idOf(1 + ((3 * 29) % DEPARTMENTS))].sort());
    const userOf = async (k: number) => (await txHost.sql.query<{ id: string }>(Prisma.sql`SELECT md5(${organizationId} || 'u' || ${k}::int)::uuid AS id`))[0].id;
    const unknown = '00000000-0000-4000-8000-000000000001';
    const batch = await repository.departmentIdsOfUsers(organizationId, [user, await userOf(50), unknown]);
    expect(batch).toEqual(
      new Map([
        [user, departments],
        [await userOf(50), await repository.departmentIdsOf(organizationId, await userOf(50))],
        [unknown, []],
      ]),
    );
    expect(batch.get(await userOf(50))!.length).toBe(2);
  });
});
