import { Injectable } from '@nestjs/common';
import { auditEventIds, AuditStatements, sqlChanges, type AuditContext } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import type { Columns } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { MembershipsAudit } from './memberships.audit';
import { narrowsByIndex, USER, userConditions, type UserFilters, type UserRow } from './users.repository';

/** A user row's memberships in the order added, as uuid[], from the statement's snapshot. */
const departmentIdsOf = (alias: string) =>
  Prisma.raw(`ARRAY(SELECT m.department_id FROM department_members AS m WHERE m.organization_id = ${alias}.organization_id AND m.user_id = ${alias}.id ORDER BY m.seq)`);

/** A user as the users module answers it (UserRow): its columns and its memberships' department ids. */
export const USER_WITH_DEPARTMENTS: Columns<UserRow> = { sql: Prisma.sql`${USER.sql}, to_jsonb(${departmentIdsOf('users')}) AS "departmentIds"` };

/**
 * A subtree with at least this many departments is listed by walking the organization's memberships
 * in user-id order; a smaller one by merging each department's next members
 * (docs/adr/0024-subtree-member-pages-by-two-plans.md).
 */
export const WIDE_SUBTREE_DEPARTMENTS = 1000;

export const departmentNotFound = (departmentId: string) =>
  new AppError(ErrorCode.NOT_FOUND, `No department ${departmentId} exists in this organization.`, { field: 'department_id', reason: 'not_found' });
export const userNotFound = (userId: string, detail = `No user ${userId} exists in this organization.`) =>
  new AppError(ErrorCode.NOT_FOUND, detail, { field: 'user_id', reason: 'not_found' });

const ADDED_USER = sqlChanges({ user_id: { old: null, new: Prisma.sql`changed."id"` } });

const REMOVED_USER = sqlChanges({ user_id: { old: Prisma.sql`changed."id"`, new: Prisma.raw('NULL::uuid') } });

/** The outcome of adding a membership: the user as it is afterwards, and whether the statement added it. */
export interface AddedMembership {
  added: boolean;
  member: UserRow;
}

/** What the list of a department's members reads: the department's own, or its whole subtree's, each user once. */
export interface MemberQuery {
  organizationId: string;
  departmentId: string;
  recursive: boolean;
  /** The users list's other filters, when it filters by department too. */
  filters?: UserFilters;
}

/**
 * department_members: every statement on memberships, for the department's side (PUT, DELETE, GET
 * …/members) and for the users list's `department_id` filter, which pages the same statements
 * (`memberIdsPage`, `usersOfDepartmentPage`). Pages are keyset on user_id.
 */
@Injectable()
export class MembershipsRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * One statement, the last of the transaction lockUser's lock opened (so its snapshot holds every
   * membership of the user committed before), sent with its COMMIT: it writes nothing when it adds
   * nothing. Inserts the membership when the department exists
   * and the user has fewer than `limit` memberships (ON CONFLICT: already a member, nothing
   * changes), and only then the user's revision + 1, updated_at, the membership as primary when
   * the user had none, and the `department.member_added` event. The insert's foreign key holds the
   * department (FOR KEY SHARE) until commit: a delete of it ends one way or the other.
   * Undefined: no such department (the user, when the department exists, is its foreign key:
   * userNotFound); `limit_reached`: not a member and no room for another.
   */
  async add(organizationId: string, departmentId: string, userId: string, limit: number, context: AuditContext): Promise<AddedMembership | 'limit_reached' | undefined> {
    const failed = violations({
      department_members_organization_id_department_id_fkey: () => departmentNotFound(departmentId),
      department_members_organization_id_user_id_fkey: () => userNotFound(userId),
    });
    try {
      const [row] = await this.txHost.sql.queryAndCommit<UserRow & { added: boolean; member: boolean }>(Prisma.sql`
        WITH department AS (SELECT id FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid),
        inserted AS (
          INSERT INTO department_members (organization_id, department_id, user_id, created_at)
          SELECT ${organizationId}::uuid, department.id, ${userId}::uuid, ${context.at} FROM department
          WHERE (SELECT count(*) FROM department_members WHERE organization_id = ${organizationId}::uuid AND user_id = ${userId}::uuid) < ${limit}
          ON CONFLICT DO NOTHING RETURNING department_id, user_id),
        changed AS (
          UPDATE users SET revision = users.revision + 1, updated_at = ${context.at},
            primary_department_id = COALESCE(users.primary_department_id, inserted.department_id)
          FROM inserted WHERE users.organization_id = ${organizationId}::uuid AND users.id = inserted.user_id
          -- The statement's snapshot has the user's memberships before it; the new one is the latest added.
          RETURNING ${USER.sql}, to_jsonb(${departmentIdsOf('users')} || inserted.department_id) AS "departmentIds"),
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: MembershipsAudit.MemberAdded,
          resourceId: Prisma.sql`${departmentId}::text`,
          // The primary changed only when the user had none: then it is this department.
          changes: Prisma.sql`${ADDED_USER} || ${sqlChanges(
            {
              primary_department_id: {
                old: Prisma.sql`CASE WHEN changed."primaryDepartmentId" = ${departmentId}::uuid THEN NULL ELSE changed."primaryDepartmentId" END`,
                new: Prisma.sql`changed."primaryDepartmentId"`,
              },
            },
            { onlyChanged: true },
          )}`,
        })}
        SELECT changed.*, true AS added, true AS member FROM changed
        UNION ALL
        SELECT ${USER_WITH_DEPARTMENTS.sql}, false, ${departmentId}::uuid = ANY (${departmentIdsOf('users')}) FROM users
        WHERE organization_id = ${organizationId}::uuid AND id = ${userId}::uuid AND EXISTS (SELECT 1 FROM department) AND NOT EXISTS (SELECT 1 FROM inserted)`);
      if (!row) return undefined;
      const { added, member: wasMember, ...user } = row;
      return wasMember ? { added, member: user } : 'limit_reached';
    } catch (error) {
      throw failed(error);
    }
  }

  /** Locks the user's row until the transaction ends (its membership writers take turns, on every instance); undefined: no such user. */
  async lockUser(organizationId: string, userId: string): Promise<{ primaryDepartmentId: string | null } | undefined> {
    const [row] = await this.txHost.sql.query<{ primaryDepartmentId: string | null }>(Prisma.sql`
      SELECT primary_department_id AS "primaryDepartmentId" FROM users
      WHERE organization_id = ${organizationId}::uuid AND id = ${userId}::uuid ${RowLock.forUpdate}`);
    return row;
  }

  /**
   * Runs `work` in a SQL transaction (the caller's when there is one): the statements of an add or
   * a removal, after lockUser, see every membership committed before the lock was granted.
   */
  inTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(work);
  }

  /**
   * One statement, the last of the transaction lockUser's lock opened, sent with its COMMIT (it
   * writes nothing when the user was not a member): deletes the membership; when it was
   * the primary, the earliest-added remaining membership becomes primary (null when none is left);
   * the user's revision + 1 and updated_at; the `department.member_removed` event. No row: the
   * user was not a member.
   */
  async remove(organizationId: string, departmentId: string, userId: string, context: AuditContext): Promise<UserRow | undefined> {
    const [row] = await this.txHost.sql.queryAndCommit<UserRow>(Prisma.sql`
      WITH removed AS (
        DELETE FROM department_members
        WHERE organization_id = ${organizationId}::uuid AND department_id = ${departmentId}::uuid AND user_id = ${userId}::uuid
        RETURNING department_id, user_id),
      earliest AS (
        SELECT m.department_id FROM department_members m
        WHERE m.organization_id = ${organizationId}::uuid AND m.user_id = ${userId}::uuid AND m.department_id <> ${departmentId}::uuid
        ORDER BY m.seq LIMIT 1),
      before AS (SELECT primary_department_id FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${userId}::uuid),
      changed AS (
        UPDATE users SET revision = users.revision + 1, updated_at = ${context.at},
          primary_department_id = CASE WHEN users.primary_department_id = removed.department_id
            THEN (SELECT department_id FROM earliest) ELSE users.primary_department_id END
        FROM removed WHERE users.organization_id = ${organizationId}::uuid AND users.id = removed.user_id
        RETURNING ${USER.sql}, to_jsonb(array_remove(${departmentIdsOf('users')}, removed.department_id)) AS "departmentIds"),
      ${this.audit.insertFrom(context, Prisma.sql`changed, before`, {
        organizationId,
        action: MembershipsAudit.MemberRemoved,
        resourceId: Prisma.sql`${departmentId}::text`,
        changes: Prisma.sql`${REMOVED_USER} || ${sqlChanges(
          { primary_department_id: { old: Prisma.sql`before.primary_department_id`, new: Prisma.sql`changed."primaryDepartmentId"` } },
          { onlyChanged: true },
        )}`,
      })}
      SELECT * FROM changed`);
    return row;
  }

  /**
   * The set-based add of many users to one department, for SCIM's Groups: one statement, run after
   * the users' rows are locked in the same transaction, with `add`'s rules for each user (inserted
   * only while the user has fewer than `limit` memberships; ON CONFLICT: already a member, nothing
   * changes), and for each membership added the user's revision + 1, updated_at, the membership as
   * primary when the user had none, and a `department.member_added` event. Answers the users that
   * were neither added nor members (at the limit); the department's existence is the caller's to check.
   */
  async addMany(organizationId: string, departmentId: string, userIds: readonly string[], limit: number, context: AuditContext): Promise<{ added: number; limitReached: string[] }> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const [row] = await this.txHost.sql.query<{ added: bigint; limitReached: string[] }>(Prisma.sql`
      WITH wanted AS (SELECT DISTINCT id AS user_id FROM unnest(${userIds}::uuid[]) AS w(id)),
      inserted AS (
        INSERT INTO department_members (organization_id, department_id, user_id, created_at)
        SELECT ${org}, ${departmentId}::uuid, wanted.user_id, ${context.at} FROM wanted
        WHERE (SELECT count(*) FROM department_members WHERE organization_id = ${org} AND user_id = wanted.user_id) < ${limit}
        ORDER BY wanted.user_id
        ON CONFLICT DO NOTHING RETURNING department_id, user_id),
      changed AS (
        UPDATE users SET revision = users.revision + 1, updated_at = ${context.at},
          primary_department_id = COALESCE(users.primary_department_id, inserted.department_id)
        FROM inserted WHERE users.organization_id = ${org} AND users.id = inserted.user_id
        RETURNING users.id, users.primary_department_id AS "primaryDepartmentId"),
      ${this.audit.insertFrom(context, Prisma.sql`(SELECT changed.*, row_number() OVER (ORDER BY changed.id) AS n FROM changed) AS changed`, {
        organizationId,
        action: MembershipsAudit.MemberAdded,
        resourceId: Prisma.sql`${departmentId}::text`,
        eventId: Prisma.sql`(${auditEventIds(context, userIds.length)}::uuid[])[changed.n]`,
        changes: Prisma.sql`${ADDED_USER} || ${sqlChanges(
          {
            primary_department_id: {
              old: Prisma.sql`CASE WHEN changed."primaryDepartmentId" = ${departmentId}::uuid THEN NULL ELSE changed."primaryDepartmentId" END`,
              new: Prisma.sql`changed."primaryDepartmentId"`,
            },
          },
          { onlyChanged: true },
        )}`,
      })}
      SELECT (SELECT count(*) FROM changed) AS added,
        -- Probes of the memberships' keys per user (the snapshot before the insert; the users are locked).
        to_jsonb(ARRAY(SELECT wanted.user_id FROM wanted
          WHERE (SELECT count(*) FROM department_members WHERE organization_id = ${org} AND user_id = wanted.user_id) >= ${limit}
            AND NOT EXISTS (SELECT FROM department_members m WHERE m.organization_id = ${org} AND m.department_id = ${departmentId}::uuid AND m.user_id = wanted.user_id)
          ORDER BY wanted.user_id)) AS "limitReached"`);
    return { added: Number(row.added), limitReached: row.limitReached };
  }

  /**
   * The set-based removal of many users from one department, for SCIM's Groups: one statement, run
   * after the users' rows are locked, with `remove`'s rules for each membership removed (the
   * earliest-added remaining membership becomes primary when the removed one was; the user's
   * revision + 1 and updated_at; a `department.member_removed` event). A user that is no member is
   * passed over. Answers how many were removed.
   */
  async removeMany(organizationId: string, departmentId: string, userIds: readonly string[], context: AuditContext): Promise<number> {
    const org = Prisma.sql`${organizationId}::uuid`;
    const [row] = await this.txHost.sql.query<{ removed: bigint }>(Prisma.sql`
      WITH targets AS MATERIALIZED (
        SELECT u.id, u.primary_department_id AS old_primary FROM users u
        JOIN department_members m ON m.organization_id = u.organization_id AND m.department_id = ${departmentId}::uuid AND m.user_id = u.id
        WHERE u.organization_id = ${org} AND u.id = ANY (${userIds}::uuid[])),
      removed AS (
        DELETE FROM department_members
        WHERE organization_id = ${org} AND department_id = ${departmentId}::uuid AND user_id = ANY (${userIds}::uuid[])),
      changed AS (
        UPDATE users SET revision = users.revision + 1, updated_at = ${context.at},
          -- A probe of the user's memberships in the order added, per user: never a join of two CTEs, which have no index.
          primary_department_id = CASE WHEN users.primary_department_id = ${departmentId}::uuid
            THEN (SELECT m.department_id FROM department_members m
              WHERE m.organization_id = ${org} AND m.user_id = users.id AND m.department_id <> ${departmentId}::uuid ORDER BY m.seq LIMIT 1)
            ELSE users.primary_department_id END
        FROM targets WHERE users.organization_id = ${org} AND users.id = targets.id
        RETURNING users.id, users.primary_department_id AS "primaryDepartmentId", targets.old_primary AS "oldPrimary"),
      ${this.audit.insertFrom(context, Prisma.sql`(SELECT changed.*, row_number() OVER (ORDER BY changed.id) AS n FROM changed) AS changed`, {
        organizationId,
        action: MembershipsAudit.MemberRemoved,
        resourceId: Prisma.sql`${departmentId}::text`,
        eventId: Prisma.sql`(${auditEventIds(context, userIds.length)}::uuid[])[changed.n]`,
        changes: Prisma.sql`${REMOVED_USER} || ${sqlChanges(
          { primary_department_id: { old: Prisma.sql`changed."oldPrimary"`, new: Prisma.sql`changed."primaryDepartmentId"` } },
          { onlyChanged: true },
        )}`,
      })}
      SELECT count(*) AS removed FROM changed`);
    return Number(row.removed);
  }

  /** On the primary key: whether the organization has the department (to tell an empty list from an unknown department). */
  async departmentExists(organizationId: string, departmentId: string): Promise<boolean> {
    const [row] = await this.txHost.sql.query<{ found: boolean }>(Prisma.sql`
      SELECT EXISTS (SELECT 1 FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid) AS found`);
    return row.found;
  }

  /** The user's departments in the order they were added (its primary need not be first): on the (organization, user, seq) index. */
  async departmentIdsOf(organizationId: string, userId: string): Promise<string[]> {
    const rows = await this.txHost.sql.query<{ departmentId: string }>(Prisma.sql`
      SELECT department_id AS "departmentId" FROM department_members
      WHERE organization_id = ${organizationId}::uuid AND user_id = ${userId}::uuid ORDER BY seq`);
    return rows.map((row) => row.departmentId);
  }

  /** The departments of each of `userIds` (a page of users) in the order they were added: one statement on the (organization, user, seq) index. */
  async departmentIdsOfUsers(organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.txHost.sql.query<{ userId: string; departmentId: string }>(Prisma.sql`
      SELECT user_id AS "userId", department_id AS "departmentId" FROM department_members
      WHERE organization_id = ${organizationId}::uuid AND user_id = ANY (${userIds}::uuid[]) ORDER BY user_id, seq`);
    const byUser = new Map<string, string[]>(userIds.map((id) => [id, []]));
    for (const row of rows) byUser.get(row.userId)?.push(row.departmentId);
    return byUser;
  }

  /**
   * Up to `limit` users of the department (recursive: of its subtree, each once) with user_id after
   * `afterUserId`, in user_id order, each read with `list` (columns of users): one statement on
   * indexes, on the replica (a list may lag). Used by GET …/members and by the users list's
   * department_id filter. No rows for an unknown department.
   *
   * With the users list's filters: user_name, external_id or email name a few users on an index of
   * their own, so those users are read first and each kept when it is a member (`membershipOf`);
   * `active` alone narrows nothing indexed, so the member pages skip the members it leaves out.
   */
  usersOfDepartmentPage<Row>(list: Columns<Row>, query: MemberQuery, afterUserId: string | undefined, limit: number): Promise<Row[]> {
    const filters = query.filters ?? {};
    if (narrowsByIndex(filters)) {
      const after = afterUserId === undefined ? Prisma.empty : Prisma.sql`AND users.id > ${afterUserId}::uuid`;
      return this.txHost.replica.query<Row>(Prisma.sql`
        SELECT ${list.sql} FROM users
        WHERE ${Prisma.join(userConditions(query.organizationId, filters), ' AND ')} ${after} AND (${this.membershipOf(query)})
        ORDER BY users.id LIMIT ${limit}`);
    }
    // = ANY (ARRAY(…)): the page's ids are probes of the users index, whatever the planner guesses of a page's size.
    return this.txHost.replica.query<Row>(Prisma.sql`
      SELECT ${list.sql} FROM users
      WHERE organization_id = ${query.organizationId}::uuid AND id = ANY (ARRAY(${this.memberIdsPage(query, afterUserId, limit)}))
      ORDER BY id`);
  }

  /**
   * A scalar query, true when the user of the outer statement's `users` row is a member of the
   * department (recursive: of a department of its subtree), else null: a probe of the membership
   * key, or the user's own memberships (at most 50, on (organization_id, user_id, seq)) against the
   * subtree's path range. Scalar, not EXISTS, so that it stays a probe per user: the planner turned
   * an EXISTS into a merge join over the department's memberships.
   */
  private membershipOf(query: MemberQuery): Prisma.Sql {
    const { organizationId, departmentId } = query;
    if (!query.recursive) {
      return Prisma.sql`SELECT true FROM department_members m
        WHERE m.organization_id = ${organizationId}::uuid AND m.user_id = users.id AND m.department_id = ${departmentId}::uuid`;
    }
    const root = Prisma.sql`(SELECT path FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid)`;
    return Prisma.sql`SELECT true FROM department_members m JOIN departments d ON d.organization_id = m.organization_id AND d.id = m.department_id
      WHERE m.organization_id = ${organizationId}::uuid AND m.user_id = users.id AND d.path >= ${root} AND d.path < ${root} || '~' LIMIT 1`;
  }

  /**
   * The next `limit` member ids after `afterUserId`, as a query of one column `user_id` in user_id
   * order, for a statement that reads more of each user. Direct members: the membership primary key
   * (organization, department, user). A subtree, each user once, by one of two plans chosen in the
   * statement by the subtree's size (docs/directory.md, "Large directories"):
   * - fewer than WIDE_SUBTREE_DEPARTMENTS departments: each department's next `limit` members on the
   *   primary key, merged and deduplicated: a page costs a probe per department of the subtree,
   *   whatever the size of its membership;
   * - more: the organization's memberships in user_id order (the (organization, user, seq) index),
   *   each kept when its department's path lies in the subtree's range: a page costs the memberships
   *   passed over, which is few when the subtree holds much of the organization's membership.
   */
  memberIdsPage(query: MemberQuery, afterUserId: string | undefined, limit: number): Prisma.Sql {
    const { organizationId, departmentId } = query;
    const active = query.filters?.active;
    // A membership counts towards the page only when its user passes the filter: a probe of the user by
    // key, as a scalar subquery (an EXISTS became a merge join reading the organization's users from the first).
    const kept =
      active === undefined
        ? Prisma.empty
        : Prisma.sql`AND (SELECT f.active FROM users f WHERE f.organization_id = m.organization_id AND f.id = m.user_id) = ${active}`;
    const after = afterUserId === undefined ? Prisma.empty : Prisma.sql`AND m.user_id > ${afterUserId}::uuid`;
    if (!query.recursive) {
      return Prisma.sql`SELECT m.user_id FROM department_members m
        WHERE m.organization_id = ${organizationId}::uuid AND m.department_id = ${departmentId}::uuid ${after} ${kept}
        ORDER BY m.user_id LIMIT ${limit}`;
    }
    const root = Prisma.sql`(SELECT path FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid)`;
    // Scalar subqueries, so that the path range is an index condition on (organization_id, path).
    const inSubtree = (alias: string) =>
      Prisma.raw(`${alias}.path >= (SELECT path FROM subtree_root) AND ${alias}.path < (SELECT path FROM subtree_root) || '~'`);
    return Prisma.sql`
      WITH subtree_root AS MATERIALIZED ${root},
      wide AS MATERIALIZED (SELECT count(*) >= ${WIDE_SUBTREE_DEPARTMENTS} AS yes FROM (
        SELECT 1 FROM departments d WHERE d.organization_id = ${organizationId}::uuid AND ${inSubtree('d')}
        LIMIT ${WIDE_SUBTREE_DEPARTMENTS}) counted)
      (SELECT DISTINCT top.user_id FROM departments d CROSS JOIN LATERAL (
          SELECT m.user_id FROM department_members m
          WHERE m.organization_id = ${organizationId}::uuid AND m.department_id = d.id ${after} ${kept}
          ORDER BY m.user_id LIMIT ${limit}) top
        WHERE NOT (SELECT yes FROM wide) AND d.organization_id = ${organizationId}::uuid AND ${inSubtree('d')}
        ORDER BY top.user_id LIMIT ${limit})
      UNION ALL
      (SELECT DISTINCT m.user_id FROM department_members m
        WHERE (SELECT yes FROM wide) AND m.organization_id = ${organizationId}::uuid ${after} ${kept}
          AND (SELECT ${inSubtree('d')} FROM departments d WHERE d.organization_id = m.organization_id AND d.id = m.department_id)
        ORDER BY m.user_id LIMIT ${limit})`;
  }
}
