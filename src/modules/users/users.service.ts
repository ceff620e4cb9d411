import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { checkRevision, type RevisionRequirement } from '../../common/http/write-preconditions';
import { canonicalJson } from '../../common/json/canonical-json';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage, type KeysetPosition, type SortValueRange } from '../../common/pagination/page-token';
import { writeInOneStatement } from '../../common/writes/one-statement-write';
import type { Prisma } from '../../generated/prisma/client';
import type { CreateUserDto } from './dto/create-user.dto';
import type { ListUsersQueryDto } from './dto/list-users-query.dto';
import type { UpdateUserDto } from './dto/update-user.dto';
import type { UserDto } from './dto/user.dto';
import type { UserPageDto } from './dto/user-page.dto';
import { PATCHED_USER_COLUMNS, PATCHED_USER_FIELDS, type PatchedUserField } from './user-fields-sql';
import { toUserDto } from './user.mapper';
import { nextDepartmentIds, nextPrimary, primaryFits } from './user-memberships';
import { MembershipsRepository, USER_WITH_DEPARTMENTS } from './memberships.repository';
import {
  departmentNotFound,
  primaryNotMember,
  UsersRepository,
  type NewUser,
  type ScimAttributes,
  type UserFilters,
  type UserPatch,
  type UserRow,
} from './users.repository';

/** A user's next values, whole, as a read-modify-write computes them (UsersService.rewrite): the columns and SCIM's attributes. */
export interface UserRewrite {
  fields: Record<PatchedUserField, string | boolean | null>;
  scimAttributes: ScimAttributes;
}

/** The columns of a PATCH by their wire names (updateRow), without the memberships: what SCIM's PATCH of plain attributes sets. */
export type ColumnChanges = Pick<UpdateUserDto, PatchedUserField>;

const notFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No user ${id} exists in this organization.`);

/** The body contradicts itself: primary_department_id is not one of the department_ids it sends. */
const primaryConflicts = () =>
  AppError.validation(
    'primary_department_id',
    'conflicting_fields',
    'primary_department_id must be one of department_ids, and may be null only when department_ids is empty.',
  );

// Lists filtered by department are ordered by user id alone: their tokens carry no sort value.
const BY_ID_ONLY: SortValueRange = { min: 0n, max: 0n };

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly memberships: MembershipsRepository,
    private readonly clock: Clock,
  ) {}

  /** One statement, in the caller's transaction (the idempotency record's). */
  async create(organizationId: string, input: CreateUserDto, actor: AuditActor): Promise<UserDto> {
    const departmentIds = input.department_ids ?? [];
    const primary = input.primary_department_id === undefined ? (departmentIds[0] ?? null) : input.primary_department_id;
    if (!primaryFits(primary, departmentIds)) throw primaryConflicts();
    const row = await this.add(
      organizationId,
      {
        userName: input.user_name,
        displayName: input.display_name ?? null,
        givenName: input.given_name ?? null,
        familyName: input.family_name ?? null,
        email: input.email ?? null,
        externalId: input.external_id ?? null,
        active: input.active ?? true,
        departmentIds,
        primaryDepartmentId: primary,
      },
      actor,
    );
    return toUserDto(row);
  }

  /**
   * A new user from normalized values (the REST create's DTO, SCIM's mapping): one statement with
   * its `user.created` event, in the caller's transaction when there is one.
   */
  async add(organizationId: string, user: NewUser, actor: AuditActor): Promise<UserRow> {
    const row = await this.users.insert(organizationId, user, { actor, at: this.clock.now() });
    if (!row) throw departmentNotFound();
    return row;
  }

  async get(organizationId: string, id: string): Promise<UserDto> {
    return toUserDto(await this.getRow(organizationId, id));
  }

  /** The stored user, SCIM's attributes included; NOT_FOUND when the organization has none with this id. */
  async getRow(organizationId: string, id: string): Promise<UserRow> {
    const row = await this.users.findById(organizationId, id);
    if (!row) throw notFound(id);
    return row;
  }

  /** Keyset pages, one row more than the page to learn whether another page follows: by (seq, id), or by id with a department filter. */
  async list(organizationId: string, query: ListUsersQueryDto): Promise<UserPageDto> {
    if (query.recursive && query.department_id === undefined) {
      throw AppError.validation('department_id', 'required', 'recursive=true lists the members of a department\'s subtree: name the department with department_id.');
    }
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const departmentId = query.department_id;
    const recursive = query.recursive ?? false;
    const filters: UserFilters = { userName: query.user_name, email: query.email, externalId: query.external_id, active: query.active };
    const tokenQuery = ['users', organizationId, JSON.stringify({ departmentId, recursive, ...filters })];
    const byId = departmentId !== undefined;
    const position = startOfPage(tokenQuery, byId ? BY_ID_ONLY : POSITIVE_INT64, query.page_token, 'filters');
    // By department: the member pages of GET …/members, so that one set of statements pages the users of a subtree.
    const rows = byId
      ? await this.memberships.usersOfDepartmentPage(USER_WITH_DEPARTMENTS, { organizationId, departmentId, recursive, filters }, position?.id, pageSize + 1)
      : await this.users.list(organizationId, filters, position, pageSize + 1);
    const positionOf = (row: UserRow): KeysetPosition => ({ after: byId ? '0' : String(row.seq), id: row.id });
    const page = pageOfRows(tokenQuery, rows, pageSize, positionOf);
    return { items: page.items.map(toUserDto), next_page_token: page.next_page_token };
  }

  /**
   * One statement (UsersRepository.update) that writes only when every rule holds and something
   * changes. When it writes nothing, the stored user says why: missing, another revision, an
   * unknown department, a primary department that is not a membership, or nothing to change (the
   * user as stored: same revision, no event). When none of these holds, the statement waited for
   * another writer of the user and stood down: it runs again, with the user's row locked.
   */
  async update(organizationId: string, id: string, input: UpdateUserDto, requirement: RevisionRequirement, actor: AuditActor): Promise<UserDto> {
    return toUserDto(await this.updateRow(organizationId, id, input, requirement, actor));
  }

  /** update, answering the stored row (SCIM's PATCH of the columns answers it as a SCIM User). */
  async updateRow(organizationId: string, id: string, input: UpdateUserDto, requirement: RevisionRequirement, actor: AuditActor): Promise<UserRow> {
    if (input.department_ids !== undefined && input.primary_department_id !== undefined && !primaryFits(input.primary_department_id, input.department_ids)) {
      throw primaryConflicts();
    }
    const patch = userPatch(input, requirement);
    const attempt = async () => {
      const written = requirement.kind === 'absent' ? undefined : await this.users.update(organizationId, id, patch, { actor, at: this.clock.now() });
      return written ?? (await this.whyNotUpdated(organizationId, id, input, requirement));
    };
    return writeInOneStatement(attempt, (work) => this.users.withLocked(organizationId, id, work));
  }

  /** Deletes in one statement (memberships with it); like update, it runs again under the row lock if it stood down for another writer. */
  async delete(organizationId: string, id: string, requirement: RevisionRequirement, actor: AuditActor): Promise<void> {
    const attempt = async () => {
      if (requirement.kind !== 'absent') {
        const revision = requirement.kind === 'revision' ? requirement.revision : undefined;
        if (await this.users.delete(organizationId, id, revision, { actor, at: this.clock.now() })) return true;
      }
      const current = await this.users.findById(organizationId, id);
      if (!current) throw notFound(id);
      checkRevision(requirement, current.revision, 'user');
      return undefined;
    };
    await writeInOneStatement(attempt, (work) => this.users.withLocked(organizationId, id, work));
  }

  /**
   * A page of the users `condition` keeps (an expression over the table `users`: SCIM's filter)
   * from the 0-based `offset`, and how many it keeps in all; `limit` 0 counts only.
   */
  async matching(organizationId: string, condition: Prisma.Sql, offset: number, limit: number): Promise<{ total: number; rows: UserRow[] }> {
    if (limit > 0) {
      // One statement: the page carries the total. Only a page that comes back empty past the
      // first row (startIndex beyond the end) needs the total counted on its own.
      const page = await this.users.matchingPage(organizationId, condition, offset, limit);
      if (page.length > 0) return { total: Number(page[0].matching), rows: page.map(({ matching: _total, ...row }) => row) };
      if (offset === 0) return { total: 0, rows: [] };
    }
    return { total: await this.users.countMatching(organizationId, condition), rows: [] };
  }

  /**
   * Read, change, write (SCIM's PUT and PATCH, whose changes are computed on the whole resource):
   * `change` gives the user's next values from the stored row, and the fields that differ are
   * written by UsersRepository.update, only while the row is still at the revision read
   * (compare-and-set), with the `user.updated` event of the fields that changed. Values equal to
   * the stored ones change and write nothing (same revision, no event). A write that lost the race
   * to another writer runs once more, read and all, with the row locked, so `change` sees the
   * newest user; a requirement naming a revision (If-Match) is then checked against that user (412).
   */
  async rewrite(organizationId: string, id: string, change: (current: UserRow) => UserRewrite, requirement: RevisionRequirement, actor: AuditActor): Promise<UserRow> {
    const attempt = async () => {
      const current = await this.getRow(organizationId, id);
      checkRevision(requirement, current.revision, 'user');
      const patch = changedValues(current, change(current));
      if (!patch) return current;
      return this.users.update(organizationId, id, { ...patch, revision: current.revision }, { actor, at: this.clock.now() });
    };
    return writeInOneStatement(attempt, (work) => this.users.withLocked(organizationId, id, work));
  }

  /** The stored user when the PATCH changes nothing; throws the rule it breaks; undefined when none explains the statement's standing down. */
  private async whyNotUpdated(organizationId: string, id: string, input: UpdateUserDto, requirement: RevisionRequirement): Promise<UserRow | undefined> {
    const current = await this.users.findById(organizationId, id);
    if (!current) throw notFound(id);
    checkRevision(requirement, current.revision, 'user');
    if (input.department_ids !== undefined && (await this.users.countDepartments(organizationId, input.department_ids)) !== input.department_ids.length) {
      throw departmentNotFound();
    }
    const departmentIds = nextDepartmentIds(current.departmentIds, input.department_ids);
    const primary = nextPrimary(current.primaryDepartmentId, departmentIds, input.primary_department_id);
    if (!primaryFits(primary, departmentIds)) throw primaryNotMember();
    const unchanged =
      (Object.keys(PATCHED_USER_COLUMNS) as PatchedUserField[]).every((field) => input[field] === undefined || input[field] === current[PATCHED_USER_FIELDS[field]]) &&
      sameList(departmentIds, current.departmentIds) &&
      primary === current.primaryDepartmentId;
    return unchanged ? current : undefined;
  }
}

function userPatch(input: UpdateUserDto, requirement: RevisionRequirement): UserPatch {
  const fields: UserPatch['fields'] = {};
  for (const field of Object.keys(PATCHED_USER_COLUMNS) as PatchedUserField[]) {
    if (input[field] !== undefined) fields[field] = input[field];
  }
  return {
    fields,
    departmentIds: input.department_ids,
    primaryDepartmentId: input.primary_department_id,
    revision: requirement.kind === 'revision' ? requirement.revision : undefined,
  };
}

/** The fields of `next` that differ from `current`, as a patch; undefined when none does. */
function changedValues(current: UserRow, next: UserRewrite): UserPatch | undefined {
  const fields: UserPatch['fields'] = {};
  for (const field of Object.keys(PATCHED_USER_COLUMNS) as PatchedUserField[]) {
    if (next.fields[field] !== current[PATCHED_USER_FIELDS[field]]) fields[field] = next.fields[field];
  }
  // Compared as the jsonb column compares them: key order does not count.
  const scimAttributesChanged = canonicalJson(next.scimAttributes) !== canonicalJson(current.scimAttributes);
  if (Object.keys(fields).length === 0 && !scimAttributesChanged) return undefined;
  return { fields, ...(scimAttributesChanged ? { scimAttributes: next.scimAttributes } : {}) };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
