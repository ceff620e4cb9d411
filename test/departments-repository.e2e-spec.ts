import { CLI_ACTOR } from '../src/common/audit/audit-actor';
import { AuditStatements } from '../src/common/audit/audit-event';
import { Clock } from '../src/common/clock';
import { AppError } from '../src/common/errors/app-error';
import { ErrorCode } from '../src/common/errors/error-code';
import { TransactionHost } from '../src/database/transaction-host';
import { Prisma } from '../src/generated/prisma/client';
import { DepartmentsRepository } from '../src/modules/directory/departments.repository';
import { DepartmentsService } from '../src/modules/directory/departments.service';
import { createTenant, testDatabaseUrl, until, useTestDatabase } from './support/test-app';

const onPostgres = testDatabaseUrl() !== undefined ? describe : describe.skip;
const NONE = { kind: 'none' } as const;

/**
 * The department tree's locking on the service and repository without HTTP, with a create's
 * transaction held open at a chosen point (PostgreSQL: the embedded database has one connection,
 * so nothing there runs beside an open transaction). test/department-tree-concurrency.e2e-spec.ts
 * sends the same races over HTTP, where their timing is left to chance.
 */
onPostgres('department tree locking, with a create held open (PostgreSQL)', () => {
  const fixture = useTestDatabase();
  let txHost: TransactionHost;
  let service: DepartmentsService;
  let organizationId: string;

  beforeAll(async () => {
    txHost = new TransactionHost(fixture.database.sql);
    service = new DepartmentsService(txHost, new DepartmentsRepository(txHost, new AuditStatements('off')), new Clock());
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  const pathOf = async (id: string) =>
    (await txHost.sql.query<{ path: string }>(Prisma.sql`SELECT path FROM departments WHERE id = ${id}::uuid`))[0].path;
  const lockWaiters = async () =>
    (await txHost.sql.query<{ n: bigint }>(Prisma.sql`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0].n;

  it('a move waits for a create under its subtree to commit, and then takes the new department along', async () => {
    const create = (name: string, parentId: string | null) => service.create(organizationId, { name, parent_id: parentId }, CLI_ACTOR);
    const target = await create('Target', null);
    const x = await create('X', null);
    const y = await create('Y', x.department_id);

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let childId = '';
    // The create's transaction stays open after its statement, as the idempotency record's does until it is stored.
    const creating = txHost.withSqlTransaction(async () => {
      childId = (await create('Z', y.department_id)).department_id;
      await released;
    });
    await until(() => childId !== '');
    let moved = false;
    const moving = service.update(organizationId, x.department_id, { parent_id: target.department_id }, NONE, CLI_ACTOR).then(() => (moved = true));
    await until(async () => (await lockWaiters()) > 0n);
    expect(moved).toBe(false);
    release();
    await creating;
    await moving;

    expect(await pathOf(childId)).toBe(`${target.department_id}/${x.department_id}/${y.department_id}/${childId}/`);
  });

  it('a create under a parent waits for a move in progress, and reads the parent path the move left', async () => {
    const create = (name: string, parentId: string | null) => service.create(organizationId, { name, parent_id: parentId }, CLI_ACTOR);
    const target = await create('Target 2', null);
    const x = await create('X 2', null);
    const y = await create('Y 2', x.department_id);

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let movedAt = '';
    // The move, its transaction held open after its statement.
    const moving = txHost.withSqlTransaction(async () => {
      await service.update(organizationId, x.department_id, { parent_id: target.department_id }, NONE, CLI_ACTOR);
      movedAt = 'done';
      await released;
    });
    await until(() => movedAt !== '');
    let childId = '';
    const creating = create('Z 2', y.department_id).then((child) => (childId = child.department_id));
    await until(async () => (await lockWaiters()) > 0n);
    expect(childId).toBe('');
    release();
    await moving;
    await creating;

    expect(await pathOf(childId)).toBe(`${target.department_id}/${x.department_id}/${y.department_id}/${childId}/`);
  });
});

describe('a refused move writes nothing', () => {
  const fixture = useTestDatabase();
  let service: DepartmentsService;
  let organizationId: string;

  beforeAll(async () => {
    const txHost = new TransactionHost(fixture.database.sql);
    service = new DepartmentsService(txHost, new DepartmentsRepository(txHost, new AuditStatements('off')), new Clock());
    organizationId = (await createTenant(fixture.database)).organizationId;
  });

  const create = (name: string, parentId: string | null) => service.create(organizationId, { name, parent_id: parentId }, CLI_ACTOR);
  const stale = { kind: 'revision', revision: 99n, code: ErrorCode.PRECONDITION_FAILED, field: 'If-Match' } as const;

  it('not even the order counter of the new parent, or of the top level, that the move would have taken its order from', async () => {
    const parent = await create('Parent', null);
    const first = await create('First child', parent.department_id);
    const moved = await create('Moved', null);
    await expect(service.update(organizationId, moved.department_id, { parent_id: parent.department_id }, stale, CLI_ACTOR)).rejects.toThrow(AppError);
    const second = await create('Second child', parent.department_id);
    expect(second.order).toBe(first.order + 1);

    const topBefore = await create('Top before', null);
    await expect(service.update(organizationId, first.department_id, { parent_id: null }, stale, CLI_ACTOR)).rejects.toThrow(AppError);
    const topAfter = await create('Top after', null);
    expect(topAfter.order).toBe(topBefore.order + 1);

    // The moves themselves, unrefused, take the next orders.
    expect((await service.update(organizationId, moved.department_id, { parent_id: parent.department_id }, NONE, CLI_ACTOR)).order).toBe(second.order + 1);
    expect((await service.update(organizationId, first.department_id, { parent_id: null }, NONE, CLI_ACTOR)).order).toBe(topAfter.order + 1);
  });
});
