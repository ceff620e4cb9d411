import { randomUUID } from 'node:crypto';
import type { Database } from '../src/database/database';
import { Prisma } from '../src/generated/prisma/client';
import { createTenant, useTwoInstances, type TestApp, type TestTenant } from './support/test-app';

/**
 * Memberships under concurrent requests on two app instances sharing one database (embedded or
 * PostgreSQL): every claim of docs/directory.md ("Members") that concerns races.
 */
describe('department members under concurrency', () => {
  const instances = useTwoInstances();
  let database: Database;
  let apps: TestApp[];
  let tenant: TestTenant;

  beforeAll(async () => {
    database = instances.database;
    apps = [instances.app, instances.otherApp];
    tenant = await createTenant(database);
  });

  const via = (index: number) => apps[index % 2];
  const newDepartment = async (): Promise<string> =>
    (await via(0).http().post('/api/openapi/v1/departments').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ name: `D ${randomUUID()}` }).expect(201)).body
      .department_id as string;
  const newUser = async (): Promise<string> =>
    (await via(1).http().post('/api/openapi/v1/users').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID()).send({ user_name: `u-${randomUUID()}` }).expect(201)).body
      .user_id as string;
  // Set-up one request at a time: a burst of creates would queue on the pool and, on a loaded machine, time out as 503.
  const inTurn = async <T>(count: number, make: () => Promise<T>): Promise<T[]> => {
    const made: T[] = [];
    for (let index = 0; index < count; index += 1) made.push(await make());
    return made;
  };
  const put = (index: number, departmentId: string, userId: string) =>
    via(index).http().put(`/api/openapi/v1/departments/${departmentId}/members/${userId}`).set('Authorization', tenant.bearer);
  const del = (index: number, departmentId: string, userId: string) =>
    via(index).http().delete(`/api/openapi/v1/departments/${departmentId}/members/${userId}`).set('Authorization', tenant.bearer);
  const membersOf = async (departmentId: string) =>
    (await database.prisma.$queryRaw<{ userId: string }[]>(Prisma.sql`SELECT user_id AS "userId" FROM department_members WHERE department_id = ${departmentId}::uuid`)).map((row) => row.userId);
  const departmentExists = async (departmentId: string) =>
    (await database.prisma.$queryRaw<unknown[]>(Prisma.sql`SELECT 1 FROM departments WHERE id = ${departmentId}::uuid`)).length === 1;
  const addedEvents = async (departmentId: string) =>
    (await database.prisma.$queryRaw<unknown[]>(Prisma.sql`SELECT 1 FROM audit_events WHERE resource_id = ${departmentId} AND action = 'department.member_added'`)).length;

  it('many parallel PUTs of one membership on two instances: one 201, the rest 200, one event, revision + 1 once', async () => {
    const department = await newDepartment();
    const user = await newUser();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, index) => put(index, department, user)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await addedEvents(department)).toBe(1);
    const [row] = await database.prisma.$queryRaw<{ revision: bigint; primary: string }[]>(Prisma.sql`SELECT revision, primary_department_id AS primary FROM users WHERE id = ${user}::uuid`);
    expect({ revision: Number(row.revision), primary: row.primary }).toEqual({ revision: 2, primary: department });
  });

  it('parallel PUTs of different departments at the limit on two instances: only the room left is taken', async () => {
    const departments = await inTurn(54, newDepartment);
    const user = (
      await via(0).http().post('/api/openapi/v1/users').set('Authorization', tenant.bearer).set('Idempotency-Key', randomUUID())
        .send({ user_name: `u-${randomUUID()}`, department_ids: departments.slice(0, 48) }).expect(201)
    ).body.user_id as string;
    const answers = await Promise.all(departments.slice(48).map((department, index) => put(index, department, user)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    const [row] = await database.prisma.$queryRaw<{ count: bigint }[]>(Prisma.sql`SELECT count(*) AS count FROM department_members WHERE user_id = ${user}::uuid`);
    expect(Number(row.count)).toBe(50);
  });

  it('member adds racing the department\'s delete never leave a member of a deleted department', async () => {
    const outcomes = { deleted: 0, kept: 0 };
    for (let round = 0; round < 6; round += 1) {
      const department = await newDepartment();
      const users = await inTurn(6, newUser);
      const deleteNow = () =>
        database.prisma.$executeRaw(Prisma.sql`DELETE FROM departments WHERE id = ${department}::uuid`).then(
          () => 'deleted',
          () => 'refused',
        );
      // Even rounds send the delete first; odd ones once the first add has answered, while the others are in flight.
      const early = round % 2 === 0 ? deleteNow() : undefined;
      // One promise per request: a supertest request sends itself again on every then().
      const adds = users.map((user, index) => put(index, department, user).then((answer) => answer));
      const remove = early ?? Promise.race(adds).then(deleteNow);
      const [deleteOutcome, ...answers] = await Promise.all([remove, ...adds]);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.every((status) => status === 201 || status === 404)).toBe(true);
      const members = await membersOf(department);
      if (await departmentExists(department)) {
        outcomes.kept += 1;
        expect(deleteOutcome).toBe('refused');
        expect(members.sort()).toEqual(users.filter((_, index) => statuses[index] === 201).sort());
        expect(members.length).toBeGreaterThan(0);
      } else {
        outcomes.deleted += 1;
        expect({ deleteOutcome, members, statuses: statuses.filter((status) => status !== 404) }).toEqual({ deleteOutcome: 'deleted', members: [], statuses: [] });
        // No user was left with the deleted department as primary.
        const primaries = await database.prisma.$queryRaw<unknown[]>(Prisma.sql`SELECT 1 FROM users WHERE primary_department_id = ${department}::uuid`);
        expect(primaries).toEqual([]);
      }
    }
    // Both endings happened: the odd rounds' delete comes after an add has committed.
    expect(outcomes.kept).toBeGreaterThanOrEqual(3);
    expect(outcomes.deleted).toBeGreaterThanOrEqual(1);
  });

  it('parallel removal of a user\'s primary membership and additions of others: the primary is always one of its memberships', async () => {
    for (let round = 0; round < 6; round += 1) {
      const [primary, second, third] = await inTurn(3, newDepartment);
      const user = await newUser();
      expect((await put(0, primary, user)).status).toBe(201);
      const answers = await Promise.all([del(round, primary, user), put(round + 1, second, user), put(round, third, user)]);
      expect(answers.map((answer) => answer.status)).toEqual([204, 201, 201]);
      const [row] = await database.prisma.$queryRaw<{ primary: string | null; revision: bigint }[]>(
        Prisma.sql`SELECT primary_department_id AS primary, revision FROM users WHERE id = ${user}::uuid`,
      );
      const memberships = await database.prisma.$queryRaw<{ departmentId: string }[]>(
        Prisma.sql`SELECT department_id AS "departmentId" FROM department_members WHERE user_id = ${user}::uuid ORDER BY seq`,
      );
      expect(memberships.map((membership) => membership.departmentId).sort()).toEqual([second, third].sort());
      expect([second, third]).toContain(row.primary);
      expect(Number(row.revision)).toBe(5);
    }
  });
});
