import { randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Clock } from '../src/common/clock';
import { AppError } from '../src/common/errors/app-error';
import { revisionRequirement } from '../src/common/http/write-preconditions';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { UsersRepository } from '../src/modules/users/users.repository';
import { UsersService } from '../src/modules/users/users.service';
import { createTenant, useTestDatabase } from './support/test-app';

const NO_PRECONDITION = { ifMatch: undefined, ifNoneMatch: undefined };

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
 * database decides (the unique name, the row lock on a write, the events written by the change's
 * own statement). test/users.e2e-spec.ts drives the same module over HTTP.
 */
describe('users service and repository', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let service: UsersService;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    service = new UsersService(new UsersRepository(txHost, new AuditStatements('off')), new Clock());
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  const eventsOf = (id: string) =>
    txHost.sql.query<{ action: string; revision_before: bigint | null; revision_after: bigint | null; changes: unknown }>(Prisma.sql`
      SELECT action, revision_before, revision_after, changes FROM audit_events WHERE resource_id = ${id} ORDER BY id`);

  it('creates at revision 1 with its event, and answers a taken name with USER_NAME_CONFLICT', async () => {
    const created = await service.create(organizationId, { user_name: 'Alpha' }, CLI_ACTOR);
    expect(created).toMatchObject({ user_name: 'Alpha', revision: 1 });
    expect(created.updated_at).toBe(created.created_at);
    expect(await eventsOf(created.user_id)).toEqual([
      { action: 'user.created', revision_before: null, revision_after: 1n, changes: { user_name: { old: null, new: 'Alpha' } } },
    ]);

    expect(await refusal(service.create(organizationId, { user_name: 'Alpha' }, CLI_ACTOR))).toEqual({ code: 'USER_NAME_CONFLICT', details: undefined });
    const other = await service.create(organizationId, { user_name: 'Beta' }, CLI_ACTOR);
    expect(await refusal(service.update(organizationId, other.user_id, { user_name: 'Alpha' }, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toEqual({
      code: 'USER_NAME_CONFLICT',
      details: undefined,
    });
    // Another organization may use the name.
    const elsewhere = (await createTenant(fixture.database)).organizationId;
    expect((await service.create(elsewhere, { user_name: 'Alpha' }, CLI_ACTOR)).user_name).toBe('Alpha');
  });

  it('renames at the expected revision (revision + 1, old and new name in the event), keeps a no-op silent, and refuses a stale revision', async () => {
    const { user_id: id } = await service.create(organizationId, { user_name: 'Gamma' }, CLI_ACTOR);
    const renamed = await service.update(organizationId, id, { user_name: 'Delta' }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR);
    expect(renamed).toMatchObject({ user_name: 'Delta', revision: 2 });

    const unchanged = await service.update(organizationId, id, { user_name: 'Delta' }, revisionRequirement(NO_PRECONDITION), CLI_ACTOR);
    expect(unchanged).toEqual(renamed);

    expect(await refusal(service.update(organizationId, id, { user_name: 'Epsilon' }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR))).toEqual({
      code: 'REVISION_CONFLICT',
      details: { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '2' },
    });
    expect(await refusal(service.update(organizationId, id, { user_name: 'Epsilon' }, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"1"' }), CLI_ACTOR))).toEqual({
      code: 'PRECONDITION_FAILED',
      details: { field: 'If-Match', reason: 'revision_mismatch', suggestion: '2' },
    });
    expect(await service.get(organizationId, id)).toEqual(renamed);
    expect(await eventsOf(id)).toEqual([
      expect.objectContaining({ action: 'user.created' }),
      { action: 'user.updated', revision_before: 1n, revision_after: 2n, changes: { user_name: { old: 'Gamma', new: 'Delta' } } },
    ]);
  });

  it('lets one of two writers expecting the same revision through and answers the other REVISION_CONFLICT', async () => {
    const { user_id: id } = await service.create(organizationId, { user_name: 'Zeta' }, CLI_ACTOR);
    const writes = ['Eta', 'Theta'].map((name) => refusal(service.update(organizationId, id, { user_name: name }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR)));
    const outcomes = await Promise.all(writes);
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome !== undefined)).toEqual({ code: 'REVISION_CONFLICT', details: expect.objectContaining({ suggestion: '2' }) });
    expect((await service.get(organizationId, id)).revision).toBe(2);
  });

  it('deletes at the expected revision with its event, frees the name, and answers NOT_FOUND afterwards and for another organization', async () => {
    const { user_id: id } = await service.create(organizationId, { user_name: 'Iota' }, CLI_ACTOR);
    expect(await refusal(service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"2"' }), CLI_ACTOR))).toMatchObject({ code: 'PRECONDITION_FAILED' });
    const elsewhere = (await createTenant(fixture.database)).organizationId;
    expect(await refusal(service.delete(elsewhere, id, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });

    await service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"1"' }), CLI_ACTOR);
    expect(await refusal(service.get(organizationId, id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(service.delete(organizationId, id, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await eventsOf(id)).at(-1)).toEqual({ action: 'user.deleted', revision_before: 1n, revision_after: null, changes: { user_name: { old: 'Iota', new: null } } });
    expect((await service.create(organizationId, { user_name: 'Iota' }, CLI_ACTOR)).user_name).toBe('Iota');
    expect(await refusal(service.get(organizationId, randomUUID()))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
