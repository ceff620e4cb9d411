import { Injectable } from '@nestjs/common';
import { AuditStatements, sqlChanges, type AuditContext } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import type { KeysetPosition } from '../../common/pagination/page-token';
import { columns, type RowOf } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type __Singular__ } from '../../generated/prisma/client';
import { __Plural__Audit } from './__kebab__.audit';
import { __Plural__Error } from './__kebab__.errors';

export const __SINGULAR_UPPER__ = columns<__Singular__>()('id', 'name', 'revision', 'seq', 'createdAt', 'updatedAt');
export type __Singular__Row = RowOf<typeof __SINGULAR_UPPER__>;

// The unique index of @@unique([organizationId, name]) in prisma/schema.prisma, by the name its
// migration gives it (a name no migration creates is a type error).
const conflicts = violations({
  __snake___organization_id_name_key: () =>
    new AppError(__Plural__Error.__SINGULAR_UPPER___NAME_CONFLICT, 'Another __singular_words__ of the organization already has this name.'),
});

/** The __snake__ table: every statement of the __kebab__ module. Each write also writes its audit event and webhook deliveries (docs/audit.md). */
@Injectable()
export class __Plural__Repository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /** One statement, in the caller's transaction (the idempotency record's); the unique index refuses a taken name. */
  async insert(organizationId: string, name: string, context: AuditContext): Promise<__Singular__Row> {
    try {
      const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
        WITH changed AS (
          INSERT INTO __snake__ (id, organization_id, name, created_at, updated_at)
          VALUES (gen_random_uuid(), ${organizationId}::uuid, ${name}, ${context.at}, ${context.at})
          RETURNING *),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: __Plural__Audit.Created,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: null,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: sqlChanges({ name: { old: null, new: Prisma.sql`changed.name` } }),
        })}
        SELECT ${__SINGULAR_UPPER__.sql} FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** On the primary key; another organization's __singular_words__ is as missing as one that never was. */
  async findById(organizationId: string, id: string): Promise<__Singular__Row | undefined> {
    const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
      SELECT ${__SINGULAR_UPPER__.sql} FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    return row;
  }

  /**
   * Runs `work` in a SQL transaction (the caller's when there is one) on the row as it is once
   * locked (undefined: there is no such row): writers of one __singular_words__, on any instance,
   * take turns here, so each sees the revision the one before it left. `work` calls rename or
   * delete with the row to change it.
   */
  withLocked<T>(organizationId: string, id: string, work: (current: __Singular__Row | undefined) => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(async () => {
      const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
        SELECT ${__SINGULAR_UPPER__.sql} FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid ${RowLock.forUpdate}`);
      return work(row);
    });
  }

  /** Up to `limit` rows after `position`, in (seq, id) order: one statement on the keyset index, read on the replica (it may lag). */
  list(organizationId: string, position: KeysetPosition | undefined, limit: number): Promise<__Singular__Row[]> {
    const after = position ? Prisma.sql`AND (seq, id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    return this.txHost.replica.query<__Singular__Row>(Prisma.sql`
      SELECT ${__SINGULAR_UPPER__.sql} FROM __snake__ WHERE organization_id = ${organizationId}::uuid ${after}
      ORDER BY seq, id LIMIT ${limit}`);
  }

  /** Renames the row `current` (locked by withLocked), revision + 1, with the `__singular_snake__.updated` event holding the old name and the new one. */
  async rename(organizationId: string, current: __Singular__Row, name: string, context: AuditContext): Promise<__Singular__Row> {
    try {
      const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
        WITH changed AS (
          UPDATE __snake__ SET name = ${name}, revision = revision + 1, updated_at = ${context.at}
          WHERE organization_id = ${organizationId}::uuid AND id = ${current.id}::uuid
          RETURNING *),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: __Plural__Audit.Updated,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: Prisma.sql`changed.revision - 1`,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: sqlChanges({ name: { old: Prisma.sql`${current.name}::text`, new: Prisma.sql`changed.name` } }),
        })}
        SELECT ${__SINGULAR_UPPER__.sql} FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** Deletes the row `current` (locked by withLocked), with the `__singular_snake__.deleted` event holding its values. */
  async delete(organizationId: string, current: __Singular__Row, context: AuditContext): Promise<void> {
    await this.txHost.sql.query(Prisma.sql`
      WITH removed AS (
        DELETE FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${current.id}::uuid
        RETURNING *),
      ${this.audit.insertFrom(context, Prisma.sql`removed`, {
        organizationId,
        action: __Plural__Audit.Deleted,
        resourceId: Prisma.sql`removed.id::text`,
        revisionBefore: Prisma.sql`removed.revision`,
        revisionAfter: null,
        changes: sqlChanges({ name: { old: Prisma.sql`removed.name`, new: Prisma.raw('NULL::text') } }),
      })}
      SELECT id FROM removed`);
  }
}
