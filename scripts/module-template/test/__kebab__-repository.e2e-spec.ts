import { randomUUID } from 'node:crypto';
import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Clock } from '../src/common/clock';
import { AppError } from '../src/common/errors/app-error';
import { revisionRequirement } from '../src/common/http/write-preconditions';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { __Plural__Repository } from '../src/modules/__kebab__/__kebab__.repository';
import { __Plural__Service } from '../src/modules/__kebab__/__kebab__.service';
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
 * The __kebab__ service on its repository and the test database, without HTTP: the rules that the
 * database decides (the unique name, the row lock on a write, the events written by the change's
 * own statement). test/__kebab__.e2e-spec.ts drives the same module over HTTP.
 */
describe('__kebab__ service and repository', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let service: __Plural__Service;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    service = new __Plural__Service(new __Plural__Repository(txHost, new AuditStatements('off')), new Clock());
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  const eventsOf = (id: string) =>
    txHost.sql.query<{ action: string; revision_before: bigint | null; revision_after: bigint | null; changes: unknown }>(Prisma.sql`
      SELECT action, revision_before, revision_after, changes FROM audit_events WHERE resource_id = ${id} ORDER BY id`);

  it('creates at revision 1 with its event, and answers a taken name with __SINGULAR_UPPER___NAME_CONFLICT', async () => {
    const created = await service.create(organizationId, { name: 'Alpha' }, CLI_ACTOR);
    expect(created).toMatchObject({ name: 'Alpha', revision: 1 });
    expect(created.updated_at).toBe(created.created_at);
    expect(await eventsOf(created.__singular_snake___id)).toEqual([
      { action: '__singular_snake__.created', revision_before: null, revision_after: 1n, changes: { name: { old: null, new: 'Alpha' } } },
    ]);

    expect(await refusal(service.create(organizationId, { name: 'Alpha' }, CLI_ACTOR))).toEqual({ code: '__SINGULAR_UPPER___NAME_CONFLICT', details: undefined });
    const other = await service.create(organizationId, { name: 'Beta' }, CLI_ACTOR);
    expect(await refusal(service.update(organizationId, other.__singular_snake___id, { name: 'Alpha' }, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toEqual({
      code: '__SINGULAR_UPPER___NAME_CONFLICT',
      details: undefined,
    });
    // Another organization may use the name.
    const elsewhere = (await createTenant(fixture.database)).organizationId;
    expect((await service.create(elsewhere, { name: 'Alpha' }, CLI_ACTOR)).name).toBe('Alpha');
  });

  it('renames at the expected revision (revision + 1, old and new name in the event), keeps a no-op silent, and refuses a stale revision', async () => {
    const { __singular_snake___id: id } = await service.create(organizationId, { name: 'Gamma' }, CLI_ACTOR);
    const renamed = await service.update(organizationId, id, { name: 'Delta' }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR);
    expect(renamed).toMatchObject({ name: 'Delta', revision: 2 });

    const unchanged = await service.update(organizationId, id, { name: 'Delta' }, revisionRequirement(NO_PRECONDITION), CLI_ACTOR);
    expect(unchanged).toEqual(renamed);

    expect(await refusal(service.update(organizationId, id, { name: 'Epsilon' }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR))).toEqual({
      code: 'REVISION_CONFLICT',
      details: { field: 'expected_revision', reason: 'revision_mismatch', suggestion: '2' },
    });
    expect(await refusal(service.update(organizationId, id, { name: 'Epsilon' }, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"1"' }), CLI_ACTOR))).toEqual({
      code: 'PRECONDITION_FAILED',
      details: { field: 'If-Match', reason: 'revision_mismatch', suggestion: '2' },
    });
    expect(await service.get(organizationId, id)).toEqual(renamed);
    expect(await eventsOf(id)).toEqual([
      expect.objectContaining({ action: '__singular_snake__.created' }),
      { action: '__singular_snake__.updated', revision_before: 1n, revision_after: 2n, changes: { name: { old: 'Gamma', new: 'Delta' } } },
    ]);
  });

  it('lets one of two writers expecting the same revision through and answers the other REVISION_CONFLICT', async () => {
    const { __singular_snake___id: id } = await service.create(organizationId, { name: 'Zeta' }, CLI_ACTOR);
    const writes = ['Eta', 'Theta'].map((name) => refusal(service.update(organizationId, id, { name }, revisionRequirement(NO_PRECONDITION, 1), CLI_ACTOR)));
    const outcomes = await Promise.all(writes);
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome !== undefined)).toEqual({ code: 'REVISION_CONFLICT', details: expect.objectContaining({ suggestion: '2' }) });
    expect((await service.get(organizationId, id)).revision).toBe(2);
  });

  it('applies every one of many renames sent at once without a precondition, each as the next revision with its own event', async () => {
    const { __singular_snake___id: id } = await service.create(organizationId, { name: 'Kappa' }, CLI_ACTOR);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => service.update(organizationId, id, { name: `Kappa ${index}` }, revisionRequirement(NO_PRECONDITION), CLI_ACTOR)));
    expect(answers.map((answer) => answer.revision).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const events = (await eventsOf(id)).filter((event) => event.action === '__singular_snake__.updated').sort((a, b) => Number(a.revision_after! - b.revision_after!));
    expect(events.map((event) => event.revision_after)).toEqual([2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    // Each event's old name is the name the one before it set.
    const names = events.map((event) => (event.changes as { name: { old: string; new: string } }).name);
    expect(names.slice(1).map((name, index) => name.old === names[index].new)).toEqual(Array(7).fill(true));
  });

  it('deletes at the expected revision with its event, frees the name, and answers NOT_FOUND afterwards and for another organization', async () => {
    const { __singular_snake___id: id } = await service.create(organizationId, { name: 'Iota' }, CLI_ACTOR);
    expect(await refusal(service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"2"' }), CLI_ACTOR))).toMatchObject({ code: 'PRECONDITION_FAILED' });
    const elsewhere = (await createTenant(fixture.database)).organizationId;
    expect(await refusal(service.delete(elsewhere, id, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });

    await service.delete(organizationId, id, revisionRequirement({ ...NO_PRECONDITION, ifMatch: '"1"' }), CLI_ACTOR);
    expect(await refusal(service.get(organizationId, id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(service.delete(organizationId, id, revisionRequirement(NO_PRECONDITION), CLI_ACTOR))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await eventsOf(id)).at(-1)).toEqual({ action: '__singular_snake__.deleted', revision_before: 1n, revision_after: null, changes: { name: { old: 'Iota', new: null } } });
    expect((await service.create(organizationId, { name: 'Iota' }, CLI_ACTOR)).name).toBe('Iota');
    expect(await refusal(service.get(organizationId, randomUUID()))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
