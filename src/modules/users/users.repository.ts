import { Injectable } from '@nestjs/common';
import { AuditStatements, sqlChanges, type AuditContext } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import { caselessKey } from '../../common/text/caseless-key';
import type { KeysetPosition } from '../../common/pagination/page-token';
import { columns, type RowOf } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type User } from '../../generated/prisma/client';
import { UsersAudit } from './users.audit';
import { UsersError } from './users.errors';

export const USER = columns<User>()('id', 'userName', 'revision', 'seq', 'createdAt', 'updatedAt');
export type UserRow = RowOf<typeof USER>;

// The unique index of @@unique([organizationId, name]) in prisma/schema.prisma, by the name its
// migration gives it (a name no migration creates is a type error).
const conflicts = violations({
  users_organization_id_user_name_key_key: () =>
    new AppError(UsersError.USER_NAME_CONFLICT, 'Another user of the organization already has this name.'),
});

/** The users table: every statement of the users module. Each write also writes its audit event and webhook deliveries (docs/audit.md). */
@Injectable()
export class UsersRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /** One statement, in the caller's transaction (the idempotency record's); the unique index refuses a taken name. */
  async insert(organizationId: string, name: string, context: AuditContext): Promise<UserRow> {
    try {
      const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
        WITH changed AS (
          INSERT INTO users (id, organization_id, user_name, user_name_key, created_at, updated_at)
          VALUES (gen_random_uuid(), ${organizationId}::uuid, ${name}, ${caselessKey(name)}, ${context.at}, ${context.at})
          RETURNING *),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: UsersAudit.Created,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: null,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: sqlChanges({ user_name: { old: null, new: Prisma.sql`changed.user_name` } }),
        })}
        SELECT ${USER.sql} FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** On the primary key; another organization's user is as missing as one that never was. */
  async findById(organizationId: string, id: string): Promise<UserRow | undefined> {
    const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
      SELECT ${USER.sql} FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    return row;
  }

  /**
   * Runs `work` in a SQL transaction (the caller's when there is one) on the row as it is once
   * locked (undefined: there is no such row): writers of one user, on any instance,
   * take turns here, so each sees the revision the one before it left. `work` calls rename or
   * delete with the row to change it.
   */
  withLocked<T>(organizationId: string, id: string, work: (current: UserRow | undefined) => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(async () => {
      const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
        SELECT ${USER.sql} FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid ${RowLock.forUpdate}`);
      return work(row);
    });
  }

  /** Up to `limit` rows after `position`, in (seq, id) order: one statement on the keyset index, read on the replica (it may lag). */
  list(organizationId: string, position: KeysetPosition | undefined, limit: number): Promise<UserRow[]> {
    const after = position ? Prisma.sql`AND (seq, id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    return this.txHost.replica.query<UserRow>(Prisma.sql`
      SELECT ${USER.sql} FROM users WHERE organization_id = ${organizationId}::uuid ${after}
      ORDER BY seq, id LIMIT ${limit}`);
  }

  /** Renames the row `current` (locked by withLocked), revision + 1, with the `user.updated` event holding the old name and the new one. */
  async rename(organizationId: string, current: UserRow, name: string, context: AuditContext): Promise<UserRow> {
    try {
      const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
        WITH changed AS (
          UPDATE users SET user_name = ${name}, user_name_key = ${caselessKey(name)}, revision = revision + 1, updated_at = ${context.at}
          WHERE organization_id = ${organizationId}::uuid AND id = ${current.id}::uuid
          RETURNING *),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: UsersAudit.Updated,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: Prisma.sql`changed.revision - 1`,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: sqlChanges({ user_name: { old: Prisma.sql`${current.userName}::text`, new: Prisma.sql`changed.user_name` } }),
        })}
        SELECT ${USER.sql} FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** Deletes the row `current` (locked by withLocked), with the `user.deleted` event holding its values. */
  async delete(organizationId: string, current: UserRow, context: AuditContext): Promise<void> {
    await this.txHost.sql.query(Prisma.sql`
      WITH removed AS (
        DELETE FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${current.id}::uuid
        RETURNING *),
      ${this.audit.insertFrom(context, Prisma.sql`removed`, {
        organizationId,
        action: UsersAudit.Deleted,
        resourceId: Prisma.sql`removed.id::text`,
        revisionBefore: Prisma.sql`removed.revision`,
        revisionAfter: null,
        changes: sqlChanges({ user_name: { old: Prisma.sql`removed.user_name`, new: Prisma.raw('NULL::text') } }),
      })}
      SELECT id FROM removed`);
  }
}
