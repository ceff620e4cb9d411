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
// The same list read from the UPDATE's CTE, beside the row it replaced.
const CHANGED = columns<__Singular__>('changed')('id', 'name', 'revision', 'seq', 'createdAt', 'updatedAt');

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

  /** Runs `work` in a SQL transaction (the caller's when there is one) with the row locked: where a one-statement write runs again after it stood down (writeInOneStatement). */
  withLocked<T>(organizationId: string, id: string, work: () => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(async () => {
      await this.txHost.sql.query(Prisma.sql`SELECT id FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid ${RowLock.forUpdate}`);
      return work();
    });
  }

  /** Up to `limit` rows after `position`, in (seq, id) order: one statement on the keyset index, read on the replica (it may lag). */
  list(organizationId: string, position: KeysetPosition | undefined, limit: number): Promise<__Singular__Row[]> {
    const after = position ? Prisma.sql`AND (seq, id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    return this.txHost.replica.query<__Singular__Row>(Prisma.sql`
      SELECT ${__SINGULAR_UPPER__.sql} FROM __snake__ WHERE organization_id = ${organizationId}::uuid ${after}
      ORDER BY seq, id LIMIT ${limit}`);
  }

  /**
   * The rename as one statement with its `__singular_snake__.updated` event (old and new name), no
   * read before it and no lock held past it (docs/adr/0023-user-changes-as-one-snapshot-checked-statement.md):
   * `old` reads the row, and the UPDATE writes only while the row is still at the revision `old`
   * read (so the event's old name is the one replaced), at `revision` when given, and with another
   * name. Undefined when it wrote nothing: the caller reads the row to tell why.
   */
  async rename(organizationId: string, id: string, name: string, revision: bigint | undefined, context: AuditContext): Promise<__Singular__Row | undefined> {
    try {
      const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
        WITH old AS (SELECT * FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid),
        changed AS (
          UPDATE __snake__ AS s SET name = ${name}, revision = s.revision + 1, updated_at = ${context.at}
          FROM old
          WHERE s.organization_id = old.organization_id AND s.id = old.id AND s.revision = old.revision AND old.name <> ${name}
            ${revision === undefined ? Prisma.empty : Prisma.sql`AND s.revision = ${revision}`}
          RETURNING s.*),
        ${this.audit.insertFrom(context, Prisma.sql`changed, old`, {
          organizationId,
          action: __Plural__Audit.Updated,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: Prisma.sql`old.revision`,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: sqlChanges({ name: { old: Prisma.sql`old.name`, new: Prisma.sql`changed.name` } }),
        })}
        SELECT ${CHANGED.sql} FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** Deletes the row (at `revision` when given) with the `__singular_snake__.deleted` event holding its values, as one statement; false when it deleted nothing. */
  async delete(organizationId: string, id: string, revision: bigint | undefined, context: AuditContext): Promise<boolean> {
    const rows = await this.txHost.sql.query(Prisma.sql`
      WITH removed AS (
        DELETE FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
          ${revision === undefined ? Prisma.empty : Prisma.sql`AND revision = ${revision}`}
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
    return rows.length === 1;
  }
}
