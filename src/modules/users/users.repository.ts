import { Injectable } from '@nestjs/common';
import { AuditStatements, created, sqlChanges, type AuditContext } from '../../common/audit/audit-event';
import { AppError } from '../../common/errors/app-error';
import type { KeysetPosition } from '../../common/pagination/page-token';
import { caselessKey } from '../../common/text/caseless-key';
import { columns, type RowOf } from '../../database/columns';
import { violations } from '../../database/constraint-violations';
import { RowLock } from '../../database/locks';
import { offsetPage } from '../../database/offset-page';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type User } from '../../generated/prisma/client';
import { PATCHED_USER_COLUMNS, type PatchedUserField } from './user-fields-sql';
import { UsersAudit } from './users.audit';
import { UsersError } from './users.errors';

const USER_FIELDS = [
  'id',
  'userName',
  'displayName',
  'givenName',
  'familyName',
  'email',
  'externalId',
  'active',
  'scimAttributes',
  'primaryDepartmentId',
  'revision',
  'seq',
  'createdAt',
  'updatedAt',
] as const;
export const USER = columns<User>()(...USER_FIELDS);
const CHANGED_USER = columns<User>('u')(...USER_FIELDS);

/** A user with its memberships' department ids, in the order they were added. */
export type UserRow = RowOf<typeof USER> & { departmentIds: string[] };

/** The attributes a SCIM client wrote that no column holds (the column scim_attributes), as a JSON object. */
export type ScimAttributes = Record<string, unknown>;

/** The wire fields of a new user, normalized by validation. */
export interface NewUser {
  userName: string;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  email: string | null;
  externalId: string | null;
  active: boolean;
  departmentIds: string[];
  primaryDepartmentId: string | null;
  /** Written by SCIM only; none ({}) otherwise. */
  scimAttributes?: ScimAttributes;
}

/** What a PATCH asks: the direct fields sent (wire name → value), and the memberships when sent. */
export interface UserPatch {
  fields: Partial<Record<PatchedUserField, string | boolean | null>>;
  departmentIds?: string[];
  /** undefined: not sent. */
  primaryDepartmentId?: string | null;
  /** The revision the stored row must be at (expected_revision or If-Match). */
  revision?: bigint;
  /** SCIM's attributes beyond the columns, replacing the stored ones; undefined: unchanged. */
  scimAttributes?: ScimAttributes;
}

/** The users list's filters on the user's own columns (the department filter is MembershipsRepository's). */
export interface UserFilters {
  userName?: string;
  email?: string;
  externalId?: string;
  active?: boolean;
}

/** Whether the filters name at most a few users through an index of their own: user_name and external_id (unique), email (its caseless index). */
export const narrowsByIndex = (filters: UserFilters): boolean => filters.userName !== undefined || filters.email !== undefined || filters.externalId !== undefined;

/** The organization and each filter as conditions on the table `users`. */
export function userConditions(organizationId: string, filters: UserFilters): Prisma.Sql[] {
  const conditions = [Prisma.sql`users.organization_id = ${organizationId}::uuid`];
  if (filters.userName !== undefined) conditions.push(Prisma.sql`users.user_name_key = ${caselessKey(filters.userName)}`);
  if (filters.email !== undefined) conditions.push(Prisma.sql`caseless_key(users.email) = ${caselessKey(filters.email)}`);
  if (filters.externalId !== undefined) conditions.push(Prisma.sql`users.external_id = ${filters.externalId}`);
  if (filters.active !== undefined) conditions.push(Prisma.sql`users.active = ${filters.active}`);
  return conditions;
}

// The database, not this code, enforces uniqueness and references; these are its answers.
const conflicts = violations({
  users_organization_id_user_name_key_key: () =>
    new AppError(UsersError.USER_NAME_CONFLICT, 'Another user of the organization already has this user_name (compared by Unicode case folding).'),
  users_organization_id_external_id_key: () => new AppError(UsersError.EXTERNAL_ID_CONFLICT, 'Another user of the organization already has this external_id.'),
  // A department removed after the statement read it, before the membership's key check.
  department_members_organization_id_department_id_fkey: () => departmentNotFound(),
  users_organization_id_id_primary_department_id_fkey: () => primaryNotMember(),
});

export const departmentNotFound = () =>
  new AppError(UsersError.DEPARTMENT_NOT_FOUND, 'department_ids names a department that does not exist in this organization.', {
    field: 'department_ids',
    reason: 'not_found',
  });

export const primaryNotMember = () =>
  new AppError(
    UsersError.PRIMARY_DEPARTMENT_NOT_MEMBER,
    'primary_department_id must name one of the user\'s departments, and may be null only when the user has none.',
    { field: 'primary_department_id', reason: 'invalid_value' },
  );

/** The memberships of the user row `alias`, in the order they were added, as uuid[] (the index on (organization_id, user_id, seq)). */
const departmentIdsOf = (alias: string) =>
  Prisma.raw(`ARRAY(SELECT m.department_id FROM department_members AS m WHERE m.organization_id = ${alias}.organization_id AND m.user_id = ${alias}.id ORDER BY m.seq)`);

const DEPARTMENT_IDS = Prisma.sql`to_jsonb(${departmentIdsOf('users')}) AS "departmentIds"`;

/** A JSON array of uuids sent as one jsonb parameter, with each element's position. */
const uuidsWithOrdinality = (ids: readonly string[], alias: string) =>
  Prisma.sql`jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) WITH ORDINALITY AS ${Prisma.raw(alias)}(id, ord)`;
const uuidArray = (ids: readonly string[]) => Prisma.sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;

/** The users table and the memberships written with it: every statement of the users module. Each write also writes its audit event and webhook deliveries (docs/audit.md). */
@Injectable()
export class UsersRepository {
  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * One statement, in the caller's transaction (the idempotency record's): the user, its
   * memberships in the order sent and the `user.created` event. Undefined when a department of
   * `departmentIds` is not one of the organization's (nothing is written). A department deleted
   * at the same moment fails the membership's foreign key (DEPARTMENT_NOT_FOUND); the unique
   * indexes refuse a taken user_name or external_id.
   */
  async insert(organizationId: string, user: NewUser, context: AuditContext): Promise<UserRow | undefined> {
    const scimAttributes = user.scimAttributes ?? {};
    const memberships =
      user.departmentIds.length === 0
        ? Prisma.empty
        : Prisma.sql`members AS (
            INSERT INTO department_members (organization_id, department_id, user_id, created_at)
            SELECT ${organizationId}::uuid, wanted.id, changed.id, ${context.at} FROM changed, wanted ORDER BY wanted.ord
            RETURNING department_id),`;
    try {
      const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
        WITH wanted AS (
          SELECT d.id, w.ord FROM ${uuidsWithOrdinality(user.departmentIds, 'w')}
          JOIN departments AS d ON d.organization_id = ${organizationId}::uuid AND d.id = w.id::uuid),
        changed AS (
          INSERT INTO users (id, organization_id, user_name, user_name_key, display_name, given_name, family_name, email, external_id, active,
            scim_attributes, primary_department_id, created_at, updated_at)
          SELECT gen_random_uuid(), ${organizationId}::uuid, ${user.userName}, ${caselessKey(user.userName)}, ${user.displayName}::text, ${user.givenName}::text,
            ${user.familyName}::text, ${user.email}::text, ${user.externalId}::text, ${user.active}, ${JSON.stringify(scimAttributes)}::jsonb,
            ${user.primaryDepartmentId}::uuid, ${context.at}, ${context.at}
          WHERE (SELECT count(*) FROM wanted) = ${user.departmentIds.length}
          RETURNING *),
        ${memberships}
        ${this.audit.insertFrom(context, Prisma.sql`changed`, {
          organizationId,
          action: UsersAudit.Created,
          resourceId: Prisma.sql`changed.id::text`,
          revisionBefore: null,
          revisionAfter: Prisma.sql`changed.revision`,
          changes: created({
            user_name: user.userName,
            display_name: user.displayName,
            given_name: user.givenName,
            family_name: user.familyName,
            email: user.email,
            external_id: user.externalId,
            active: user.active,
            department_ids: user.departmentIds,
            primary_department_id: user.primaryDepartmentId,
            // Only a user that has some: the REST API's creations record the fields it knows.
            ...(Object.keys(scimAttributes).length > 0 ? { scim_attributes: scimAttributes } : {}),
          }),
        })}
        SELECT ${USER.sql}, ${JSON.stringify(user.departmentIds)}::jsonb AS "departmentIds" FROM changed`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** On the primary key; another organization's user is as missing as one that never was. */
  async findById(organizationId: string, id: string): Promise<UserRow | undefined> {
    const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
      SELECT ${USER.sql}, ${DEPARTMENT_IDS} FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    return row;
  }

  /** How many of `ids` are departments of the organization. */
  async countDepartments(organizationId: string, ids: readonly string[]): Promise<number> {
    const [row] = await this.txHost.sql.query<{ count: bigint }>(Prisma.sql`
      SELECT count(*) AS count FROM departments WHERE organization_id = ${organizationId}::uuid AND id = ANY(${uuidArray(ids)})`);
    return Number(row.count);
  }

  /** Runs `work` in a SQL transaction (the caller's when there is one) with the user's row locked: the way of a write that lost a race twice. */
  withLocked<T>(organizationId: string, id: string, work: () => Promise<T>): Promise<T> {
    return this.txHost.withSqlTransaction(async () => {
      await this.txHost.sql.query(Prisma.sql`SELECT id FROM users WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid ${RowLock.forUpdate}`);
      return work();
    });
  }

  /**
   * Up to `limit` users matching `filters` (no department filter: MembershipsRepository pages
   * those) after `position`, in (seq, id) order on (organization_id, seq, id), read on the replica
   * (it may lag).
   */
  list(organizationId: string, filters: UserFilters, position: KeysetPosition | undefined, limit: number): Promise<UserRow[]> {
    const conditions = userConditions(organizationId, filters);
    if (position) conditions.push(Prisma.sql`(users.seq, users.id) > (${position.after}::bigint, ${position.id}::uuid)`);
    return this.txHost.replica.query<UserRow>(Prisma.sql`
      SELECT ${USER.sql}, ${DEPARTMENT_IDS} FROM users WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY users.seq, users.id LIMIT ${limit}`);
  }

  /**
   * Up to `limit` users of the organization that `condition` keeps (an expression over the table
   * `users`: SCIM's filter, translated), after the first `offset`, in creation order (seq, id) on
   * (organization_id, seq, id). On the primary: a provider looks a user up by its filter before it
   * creates one.
   */
  matchingPage(organizationId: string, condition: Prisma.Sql, offset: number, limit: number): Promise<(UserRow & { matching: bigint })[]> {
    // The window's count is taken before OFFSET and LIMIT: every row of the page carries the total.
    return this.txHost.sql.query<UserRow & { matching: bigint }>(Prisma.sql`
      SELECT ${USER.sql}, ${DEPARTMENT_IDS}, count(*) OVER () AS matching FROM users WHERE users.organization_id = ${organizationId}::uuid AND (${condition})
      ORDER BY users.seq, users.id ${offsetPage(offset, limit)}`);
  }

  /** How many users of the organization `condition` keeps (as matchingPage). */
  async countMatching(organizationId: string, condition: Prisma.Sql): Promise<number> {
    const [row] = await this.txHost.sql.query<{ count: bigint }>(Prisma.sql`
      SELECT count(*) AS count FROM users WHERE users.organization_id = ${organizationId}::uuid AND (${condition})`);
    return Number(row.count);
  }

  /**
   * The whole PATCH as one statement, with no read before it and no lock held past it: the
   * fields, the memberships (kept ones stay, new ones follow in the order sent, the rest are
   * removed), the primary department (user-memberships.ts: the same rules in code) and the
   * `user.updated` event with the old and new value of each field that changed.
   *
   * `old` reads the user and its memberships in the statement's snapshot; the UPDATE changes the
   * row only while it is still at that snapshot's revision and of the caller's organization.
   * Both find the row by the primary key alone, the organization a guard on `old`'s row: with the
   * organization among their conditions, a plan made without statistics may take any index led by
   * organization_id (email's, external_id's) and read every user of the organization, twice per
   * PATCH. A writer that changed the user after
   * the snapshot (this statement waited for its row lock) makes the UPDATE match nothing, so the
   * membership CTEs, which see only the snapshot, never act on memberships they cannot see. Every
   * rule (revision, departments of the organization, primary among the memberships, something
   * differs) is a guard of the UPDATE: no row back means nothing was written, and the caller
   * tells why from the stored user.
   */
  async update(organizationId: string, id: string, patch: UserPatch, context: AuditContext): Promise<UserRow | undefined> {
    const sets: Prisma.Sql[] = [];
    const differs: Prisma.Sql[] = [];
    const audited: Record<string, { old: Prisma.Sql; new: Prisma.Sql }> = {};
    for (const [field, value] of Object.entries(patch.fields) as [PatchedUserField, string | boolean | null][]) {
      const { column, type } = PATCHED_USER_COLUMNS[field];
      const next = value === null ? Prisma.raw(`NULL::${type}`) : Prisma.sql`${value}::${Prisma.raw(type)}`;
      sets.push(Prisma.sql`${Prisma.raw(column)} = ${next}`);
      if (field === 'user_name') sets.push(Prisma.sql`user_name_key = ${caselessKey(value as string)}`);
      differs.push(Prisma.sql`old.${Prisma.raw(column)} IS DISTINCT FROM ${next}`);
      audited[field] = { old: Prisma.raw(`old.${column}`), new: Prisma.raw(`u.${column}`) };
    }
    if (patch.scimAttributes !== undefined) {
      // jsonb equality: the same attributes in another key order are no change.
      const next = Prisma.sql`${JSON.stringify(patch.scimAttributes)}::jsonb`;
      sets.push(Prisma.sql`scim_attributes = ${next}`);
      differs.push(Prisma.sql`old.scim_attributes IS DISTINCT FROM ${next}`);
      audited.scim_attributes = { old: Prisma.raw('old.scim_attributes'), new: Prisma.raw('u.scim_attributes') };
    }
    const membershipsSent = patch.departmentIds !== undefined;
    const wanted = patch.departmentIds ?? [];
    const guards: Prisma.Sql[] = [];
    if (patch.revision !== undefined) guards.push(Prisma.sql`s.revision = ${patch.revision}`);
    if (membershipsSent || patch.primaryDepartmentId !== undefined) {
      sets.push(Prisma.sql`primary_department_id = next.primary_department_id`);
      differs.push(Prisma.sql`old.primary_department_id IS DISTINCT FROM next.primary_department_id`);
      audited.primary_department_id = { old: Prisma.raw('old.primary_department_id'), new: Prisma.raw('next.primary_department_id') };
      guards.push(
        Prisma.sql`(CASE WHEN next.primary_department_id IS NULL THEN cardinality(next.department_ids) = 0 ELSE next.primary_department_id = ANY(next.department_ids) END)`,
      );
    }
    if (membershipsSent) {
      differs.push(Prisma.sql`old.department_ids IS DISTINCT FROM next.department_ids`);
      audited.department_ids = { old: Prisma.raw('old.department_ids'), new: Prisma.raw('next.department_ids') };
      guards.push(Prisma.sql`(SELECT count(*) FROM departments AS d WHERE d.organization_id = ${organizationId}::uuid AND d.id = ANY(next.wanted)) = ${wanted.length}`);
    }
    if (sets.length === 0) return undefined;

    const primary =
      patch.primaryDepartmentId !== undefined
        ? Prisma.sql`${patch.primaryDepartmentId}::uuid`
        : Prisma.sql`CASE WHEN old.primary_department_id = ANY(ids.department_ids) THEN old.primary_department_id ELSE ids.department_ids[1] END`;
    const nextIds = membershipsSent
      ? Prisma.sql`ARRAY(SELECT k.id FROM unnest(old.department_ids) WITH ORDINALITY AS k(id, ord) WHERE k.id = ANY(${uuidArray(wanted)}) ORDER BY k.ord)
          || ARRAY(SELECT n.id::uuid FROM ${uuidsWithOrdinality(wanted, 'n')} WHERE n.id::uuid <> ALL(old.department_ids) ORDER BY n.ord)`
      : Prisma.sql`old.department_ids`;
    const membershipWrites = membershipsSent
      ? Prisma.sql`
        removed AS (
          DELETE FROM department_members AS m USING u, next
          WHERE m.organization_id = ${organizationId}::uuid AND m.user_id = u.id AND m.department_id <> ALL(next.department_ids)
          RETURNING m.department_id),
        added AS (
          INSERT INTO department_members (organization_id, department_id, user_id, created_at)
          SELECT ${organizationId}::uuid, n.id::uuid, u.id, ${context.at} FROM u, old, ${uuidsWithOrdinality(wanted, 'n')}
          WHERE n.id::uuid <> ALL(old.department_ids) ORDER BY n.ord
          RETURNING department_id),`
      : Prisma.empty;
    try {
      const [row] = await this.txHost.sql.query<UserRow>(Prisma.sql`
        WITH old AS (
          SELECT users.*, ${departmentIdsOf('users')} AS department_ids FROM users WHERE users.id = ${id}::uuid),
        next AS (
          SELECT ids.department_ids, ${primary} AS primary_department_id, ${uuidArray(wanted)} AS wanted
          FROM old, LATERAL (SELECT ${nextIds} AS department_ids) AS ids),
        u AS (
          UPDATE users AS s SET ${Prisma.join(sets)}, revision = s.revision + 1, updated_at = ${context.at}
          FROM old, next
          WHERE s.id = ${id}::uuid AND old.organization_id = ${organizationId}::uuid AND s.revision = old.revision
            ${guards.length > 0 ? Prisma.sql`AND ${Prisma.join(guards, ' AND ')}` : Prisma.empty}
            AND (${Prisma.join(differs, ' OR ')})
          RETURNING s.*),
        ${membershipWrites}
        ${this.audit.insertFrom(context, Prisma.sql`u, old, next`, {
          organizationId,
          action: UsersAudit.Updated,
          resourceId: Prisma.sql`u.id::text`,
          revisionBefore: Prisma.sql`old.revision`,
          revisionAfter: Prisma.sql`u.revision`,
          changes: sqlChanges(audited, { onlyChanged: true }),
        })}
        SELECT ${CHANGED_USER.sql}, to_jsonb(next.department_ids) AS "departmentIds" FROM u, next`);
      return row;
    } catch (error) {
      throw conflicts(error);
    }
  }

  /**
   * Deletes the user (its memberships go with it, by their foreign key) with the `user.deleted`
   * event holding its last values, as one statement. As with update, the row is deleted only
   * while it is at the revision the statement's snapshot read (and at `revision` when given).
   * False when nothing was deleted.
   */
  async delete(organizationId: string, id: string, revision: bigint | undefined, context: AuditContext): Promise<boolean> {
    const rows = await this.txHost.sql.query(Prisma.sql`
      WITH old AS (
        SELECT users.*, ${departmentIdsOf('users')} AS department_ids FROM users WHERE users.id = ${id}::uuid),
      u AS (
        DELETE FROM users AS s USING old
        WHERE s.id = ${id}::uuid AND old.organization_id = ${organizationId}::uuid AND s.revision = old.revision
          ${revision === undefined ? Prisma.empty : Prisma.sql`AND s.revision = ${revision}`}
        RETURNING s.id, s.revision),
      ${this.audit.insertFrom(context, Prisma.sql`u, old`, {
        organizationId,
        action: UsersAudit.Deleted,
        resourceId: Prisma.sql`u.id::text`,
        revisionBefore: Prisma.sql`u.revision`,
        revisionAfter: null,
        changes: sqlChanges(DELETED_CHANGES),
      })}
      SELECT u.id FROM u`);
    return rows.length === 1;
  }
}

const NULL_TEXT = Prisma.raw('NULL::text');
const DELETED_CHANGES = Object.fromEntries(
  [...Object.values(PATCHED_USER_COLUMNS).map(({ column }) => column), 'department_ids', 'primary_department_id'].map((column) => [
    column,
    { old: Prisma.raw(`old.${column}`), new: NULL_TEXT },
  ]),
);
