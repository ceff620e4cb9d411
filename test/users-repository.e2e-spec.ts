import { randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Clock } from '../src/common/clock';
import { AppError } from '../src/common/errors/app-error';
import { revisionRequirement } from '../src/common/http/write-preconditions';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { DepartmentsRepository } from '../src/modules/directory/departments.repository';
import { MembershipsRepository } from '../src/modules/users/memberships.repository';
import { UsersRepository } from '../src/modules/users/users.repository';
import { UsersService } from '../src/modules/users/users.service';
import { createTenant, useTestDatabase } from './support/test-app';

const NO_PRECONDITION = { ifMatch: undefined, ifNoneMatch: undefined };
const ANY_REVISION = revisionRequirement(NO_PRECONDITION);

/** The answer of a call that throws an AppError, as code and details; undefined when it does not throw. */
async function refusal(work: Promise<unknown>): Promise<Pick<AppError, 'code' | 'details'> | undefined> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, details: error.details };
  }
  return undefined;
}

/**
 * The users service on its repository and the test database, without HTTP: the rules that the
 * database decides (unique user_name by case folding and external_id, memberships of the
 * organization's departments, the one-statement PATCH standing down for a concurrent writer, the
 * events written by the change's own statement). test/users.e2e-spec.ts drives the module over HTTP.
 */
describe('users service and repository', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let service: UsersService;
  let departments: DepartmentsRepository;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    const audit = new AuditStatements('off');
    service = new UsersService(new UsersRepository(txHost, audit), new MembershipsRepository(txHost, audit), new Clock());
    departments = new DepartmentsRepository(txHost, audit);
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  const department = async (name = `D ${randomUUID()}`, org = organizationId) => {
    const outcome = await departments.insert(org, { parentId: null, name, externalId: null }, { actor: CLI_ACTOR, at: new Date() });
    if (outcome.kind !== 'created') throw new Error(`department not created: ${outcome.kind}`);
    return outcome.row.id;
  };
  const eventsOf = (id: string) =>
    txHost.sql.query<{ action: string; revision_before: bigint | null; revision_after: bigint | null; changes: unknown }>(Prisma.sql`
      SELECT action, revision_before, revision_after, changes FROM audit_events WHERE resource_id = ${id} ORDER BY id`);
  const membershipsOf = async (id: string) =>
    (await txHost.sql.query<{ department_id: string }>(Prisma.sql`SELECT department_id FROM department_members WHERE user_id = ${id}::uuid ORDER BY seq`)).map(
      (row) => row.department_id,
    );

  it('creates with its memberships in order and the first as primary, in one event; refuses unknown departments, taken names and external_ids', async () => {
    const [a, b] = [await department(), await department()];
    const created = await service.create(organizationId, { user_name: 'Straße', department_ids: [b, a], external_id: 'emp-1' }, CLI_ACTOR);
    expect(created).toMatchObject({ user_name: 'Straße', department_ids: [b, a], primary_department_id: b, active: true, email: null, revision: 1 });
    expect(await service.get(organizationId, created.user_id)).toEqual(created);
    expect(await eventsOf(created.user_id)).toEqual([
      {
        action: 'user.created',
        revision_before: null,
        revision_after: 1n,
        changes: expect.objectContaining({ user_name: { old: null, new: 'Straße' }, department_ids: { old: null, new: [b, a] }, primary_department_id: { old: null, new: b } }),
      },
    ]);

    const foreign = await department('Theirs', (await createTenant(fixture.database)).organizationId);
    for (const ids of [[a, randomUUID()], [foreign]]) {
      expect(await refusal(service.create(organizationId, { user_name: `u-${randomUUID()}`, department_ids: ids }, CLI_ACTOR))).toEqual({
        code: 'DEPARTMENT_NOT_FOUND',
        details: { field: 'department_ids', reason: 'not_found' },
      });
    }
    expect(await refusal(service.create(organizationId, { user_name: 'STRASSE' }, CLI_ACTOR))).toMatchObject({ code: 'USER_NAME_CONFLICT' });
    expect(await refusal(service.create(organizationId, { user_name: 'Other', external_id: 'emp-1' }, CLI_ACTOR))).toMatchObject({ code: 'EXTERNAL_ID_CONFLICT' });
    const [{ count }] = await txHost.sql.query<{ count: bigint }>(Prisma.sql`SELECT count(*) AS count FROM users WHERE organization_id = ${organizationId}::uuid`);
    expect(count).toBe(1n);
  });

  it('replaces memberships with PATCH (kept ones keep their place, new ones follow, the primary moves on to the earliest remaining), and a no-op writes nothing', async () => {
    const [a, b, c, d] = [await department(), await department(), await department(), await department()];
    const { user_id: id } = await service.create(organizationId, { user_name: 'Mover', department_ids: [a, b, c] }, CLI_ACTOR);
    const moved = await service.update(organizationId, id, { department_ids: [d, c, b] }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR);
    expect(moved).toMatchObject({ department_ids: [b, c, d], primary_department_id: b, revision: 2 });
    expect(await membershipsOf(id)).toEqual([b, c, d]);
    expect((await eventsOf(id)).at(-1)).toEqual({
      action: 'user.updated',
      revision_before: 1n,
      revision_after: 2n,
      changes: { department_ids: { old: [a, b, c], new: [b, c, d] }, primary_department_id: { old: a, new: b } },
    });

    for (const noOp of [{ department_ids: [d, b, c] }, { primary_department_id: b, display_name: null }, {}]) {
      expect(await service.update(organizationId, id, noOp, ANY_REVISION, CLI_ACTOR)).toEqual(moved);
    }
    const primaryOnly = await service.update(organizationId, id, { primary_department_id: d, display_name: 'Mo' }, ANY_REVISION, CLI_ACTOR);
    expect(primaryOnly).toMatchObject({ department_ids: [b, c, d], primary_department_id: d, display_name: 'Mo', revision: 3 });
    expect(await refusal(service.update(organizationId, id, { primary_department_id: a }, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'PRIMARY_DEPARTMENT_NOT_MEMBER' });
    expect(await refusal(service.update(organizationId, id, { primary_department_id: null }, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'PRIMARY_DEPARTMENT_NOT_MEMBER' });
    expect(await refusal(service.update(organizationId, id, { department_ids: [a, randomUUID()] }, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'DEPARTMENT_NOT_FOUND' });
    expect(await refusal(service.update(organizationId, id, { active: false }, revisionRequirement(NO_PRECONDITION, 2), CLI_ACTOR))).toMatchObject({ code: 'REVISION_CONFLICT' });

    const emptied = await service.update(organizationId, id, { department_ids: [] }, ANY_REVISION, CLI_ACTOR);
    expect(emptied).toMatchObject({ department_ids: [], primary_department_id: null, revision: 4 });
    expect((await eventsOf(id)).map((event) => event.action)).toEqual(['user.created', 'user.updated', 'user.updated', 'user.updated']);
  });

  it('applies every one of many PATCHes sent at once to one user (a statement that waited for another writer runs again), leaving memberships of exactly the last', async () => {
    const pool = [await department(), await department(), await department(), await department()];
    const { user_id: id } = await service.create(organizationId, { user_name: 'Busy', department_ids: [pool[0]] }, CLI_ACTOR);
    const sets = Array.from({ length: 12 }, (_, index) => [pool[index % 4], pool[(index + 1) % 4]]);
    const answers = await Promise.all(sets.map((ids, index) => service.update(organizationId, id, { department_ids: ids, display_name: `v${index}` }, ANY_REVISION, CLI_ACTOR)));
    const final = await service.get(organizationId, id);
    expect(new Set(answers.map((answer) => answer.revision)).size).toBe(answers.length);
    expect(final.revision).toBe(1 + answers.length);
    const last = answers.find((answer) => answer.revision === final.revision)!;
    expect({ departments: new Set(final.department_ids), memberships: await membershipsOf(id) }).toEqual({ departments: new Set(last.department_ids), memberships: final.department_ids });
    expect(final.department_ids).toContain(final.primary_department_id);
    expect(await eventsOf(id)).toHaveLength(1 + answers.length);
  });

  it('deletes at the expected revision with its memberships and one event of its last values, frees user_name and external_id; NOT_FOUND afterwards, and to a PATCH or DELETE of another organization', async () => {
    const a = await department();
    const { user_id: id } = await service.create(organizationId, { user_name: 'Iota', external_id: 'emp-iota', department_ids: [a] }, CLI_ACTOR);
    expect(await refusal(service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"2"' }), CLI_ACTOR))).toMatchObject({ code: 'PRECONDITION_FAILED' });
    const elsewhere = (await createTenant(fixture.database)).organizationId;
    expect(await refusal(service.delete(elsewhere, id, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });
    // The statements find the row by its key alone; the organization's guard leaves another one's user untouched.
    expect(await refusal(service.update(elsewhere, id, { display_name: 'Theirs', department_ids: [] }, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await service.get(organizationId, id)).toMatchObject({ display_name: null, department_ids: [a], revision: 1 });
    expect((await eventsOf(id)).map((event) => event.action)).toEqual(['user.created']);

    await service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"1"' }), CLI_ACTOR);
    expect(await refusal(service.get(organizationId, id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await membershipsOf(id)).toEqual([]);
    expect(await refusal(service.delete(organizationId, id, ANY_REVISION, CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await eventsOf(id)).at(-1)).toEqual({
      action: 'user.deleted',
      revision_before: 1n,
      revision_after: null,
      changes: {
        user_name: { old: 'Iota', new: null },
        display_name: { old: null, new: null },
        given_name: { old: null, new: null },
        family_name: { old: null, new: null },
        email: { old: null, new: null },
        external_id: { old: 'emp-iota', new: null },
        active: { old: true, new: null },
        department_ids: { old: [a], new: null },
        primary_department_id: { old: a, new: null },
      },
    });
    expect(await service.create(organizationId, { user_name: 'iota', external_id: 'emp-iota' }, CLI_ACTOR)).toMatchObject({ user_name: 'iota' });
  });
});
