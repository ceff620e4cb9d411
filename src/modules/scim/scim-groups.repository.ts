import { Injectable } from '@nestjs/common';
import { RowLock } from '../../database/locks';
import { offsetPage } from '../../database/offset-page';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import { DEPARTMENT, type DepartmentRow } from '../directory/departments.repository';
import { filterAttributes, type FilterColumn } from './protocol/filter-sql';
import { SCIM_SCHEMA } from './protocol/schemas';

const text = (sql: string, options: Partial<FilterColumn> = {}): FilterColumn => ({ type: 'string', sql: Prisma.raw(sql), ...options });

/**
 * What a filter of /scim/v2/Groups may name (CONTRACT.md section 12), as SQL over the table
 * `departments`. `id eq` is the primary key, `externalId eq` the (organization_id, external_id)
 * key, `members.value eq` an EXISTS probe of the membership key (organization_id, department_id,
 * user_id) per department, or, when the planner starts from the user, the (organization_id,
 * user_id, department_id) key. `displayName` compares by caseless key like the sibling-name rule.
 */
export const GROUP_FILTER_ATTRIBUTES = filterAttributes(SCIM_SCHEMA.group, {
  id: { type: 'uuid', sql: Prisma.raw('departments.id') },
  externalId: text('departments.external_id', { caseExact: true }),
  displayName: text('departments.name', { caselessKey: Prisma.raw('departments.name_key') }),
  'meta.created': { type: 'dateTime', sql: Prisma.raw('departments.created_at') },
  'meta.lastModified': { type: 'dateTime', sql: Prisma.raw('departments.updated_at') },
  [`${SCIM_SCHEMA.workspaceGroup}:parentId`]: { type: 'uuid', sql: Prisma.raw('departments.parent_id') },
  members: {
    anyElement: (condition) =>
      Prisma.sql`EXISTS (SELECT FROM department_members AS member
        WHERE member.organization_id = departments.organization_id AND member.department_id = departments.id AND ${condition})`,
    subAttributes: { value: { type: 'uuid', sql: Prisma.raw('member.user_id') } },
  },
});

/** A direct member of a department as a group lists it: the user's id and the name to display. */
export interface GroupMemberRow {
  departmentId: string;
  userId: string;
  display: string;
}

/** A change of a department's member set: users to add, users to remove. */
export interface MemberDelta {
  add: string[];
  remove: string[];
}

/**
 * The statements SCIM's Groups need beyond the departments' and memberships' own repositories:
 * the filtered, counted pages; the members of a page of groups; the member set a PUT replaces,
 * compared in SQL; and the row locks a change of members takes, users before the department (the
 * order every membership writer takes them in: docs/directory.md, "Locking").
 */
@Injectable()
export class ScimGroupsRepository {
  constructor(private readonly txHost: SqlHost) {}

  /** Runs `work` in one SQL transaction (the caller's when there is one): a group's change is one commit, its locks held to the end. */
  inTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(work);
  }

  /** One page of the departments `condition` keeps, in id order (the (organization_id, id) key), on the primary: a provider reads what it just wrote. */
  matchingPage(organizationId: string, condition: Prisma.Sql, offset: number, limit: number): Promise<DepartmentRow[]> {
    return this.txHost.sql.query<DepartmentRow>(Prisma.sql`
      SELECT ${DEPARTMENT.sql} FROM departments
      WHERE departments.organization_id = ${organizationId}::uuid AND (${condition})
      ORDER BY departments.id ${offsetPage(offset, limit)}`);
  }

  /** How many departments `condition` keeps: the exact totalResults. */
  async countMatching(organizationId: string, condition: Prisma.Sql): Promise<number> {
    const [row] = await this.txHost.sql.query<{ total: bigint }>(Prisma.sql`
      SELECT count(*) AS total FROM departments WHERE departments.organization_id = ${organizationId}::uuid AND (${condition})`);
    return Number(row.total);
  }

  /**
   * The direct members of the departments, in (department, user id) order, at most `limit` rows:
   * one statement on the membership key, each user's display name probed by its key.
   */
  membersOf(organizationId: string, departmentIds: readonly string[], limit: number): Promise<GroupMemberRow[]> {
    return this.txHost.sql.query<GroupMemberRow>(Prisma.sql`
      SELECT m.department_id AS "departmentId", m.user_id AS "userId", coalesce(u.display_name, u.user_name) AS display
      FROM department_members m JOIN users u ON u.organization_id = m.organization_id AND u.id = m.user_id
      WHERE m.organization_id = ${organizationId}::uuid AND m.department_id = ANY (${departmentIds}::uuid[])
      ORDER BY m.department_id, m.user_id LIMIT ${limit}`);
  }

  /** The department's direct member ids, in id order. */
  async memberIds(organizationId: string, departmentId: string): Promise<string[]> {
    const rows = await this.txHost.sql.query<{ userId: string }>(Prisma.sql`
      SELECT user_id AS "userId" FROM department_members
      WHERE organization_id = ${organizationId}::uuid AND department_id = ${departmentId}::uuid ORDER BY user_id`);
    return rows.map((row) => row.userId);
  }

  /** What replacing the department's members with `wanted` changes: one statement comparing the two sets on the membership key. */
  async memberDelta(organizationId: string, departmentId: string, wanted: readonly string[]): Promise<MemberDelta> {
    const rows = await this.txHost.sql.query<{ userId: string; add: boolean }>(Prisma.sql`
      WITH wanted AS (SELECT DISTINCT id FROM unnest(${wanted}::uuid[]) AS w(id)),
      present AS (
        SELECT user_id FROM department_members WHERE organization_id = ${organizationId}::uuid AND department_id = ${departmentId}::uuid)
      SELECT wanted.id AS "userId", true AS add FROM wanted WHERE NOT EXISTS (SELECT FROM present WHERE present.user_id = wanted.id)
      UNION ALL
      SELECT present.user_id, false FROM present WHERE NOT EXISTS (SELECT FROM wanted WHERE wanted.id = present.user_id)`);
    return { add: rows.filter((row) => row.add).map((row) => row.userId), remove: rows.filter((row) => !row.add).map((row) => row.userId) };
  }

  /**
   * Locks the rows of those of `userIds` the organization has, in id order (so two writers that
   * lock overlapping sets never wait on each other in a cycle), until the transaction ends; answers
   * their ids. Every membership writer holds the user's lock first (MembershipsRepository.lockUser),
   * so a user's memberships stay as read until commit.
   */
  async lockUsers(organizationId: string, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.txHost.sql.query<{ id: string }>(Prisma.sql`
      SELECT id FROM users WHERE organization_id = ${organizationId}::uuid AND id = ANY (${userIds}::uuid[]) ORDER BY id ${RowLock.forUpdate}`);
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Locks the department's row until the transaction ends and answers its revision (undefined: no
   * such department). SHARE for a change of members: concurrent member changes go on together,
   * while a rename, move or delete waits; UPDATE for a delete.
   */
  async lockDepartment(organizationId: string, departmentId: string, mode: 'share' | 'update'): Promise<bigint | undefined> {
    const [row] = await this.txHost.sql.query<{ revision: bigint }>(Prisma.sql`
      SELECT revision FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ${departmentId}::uuid
      ${mode === 'share' ? RowLock.forShare : RowLock.forUpdate}`);
    return row?.revision;
  }

  /** How many child departments the department has (a group with children is not deleted). */
  async childCount(organizationId: string, departmentId: string): Promise<number> {
    const [row] = await this.txHost.sql.query<{ n: bigint }>(Prisma.sql`
      SELECT count(*) AS n FROM departments WHERE organization_id = ${organizationId}::uuid AND parent_id = ${departmentId}::uuid`);
    return Number(row.n);
  }
}
