import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import type { AuditContext } from '../../common/audit/audit-event';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { checkRevision, type RevisionRequirement } from '../../common/http/write-preconditions';
import { lowerCaseUuid } from '../../common/validation/string-rules';
import { Prisma } from '../../generated/prisma/client';
import { DepartmentsService } from '../directory/departments.service';
import { DirectoryError } from '../directory/directory.errors';
import type { DepartmentDto } from '../directory/dto/department.dto';
import { toDepartmentDto } from '../directory/department.mapper';
import { MAX_DEPARTMENTS_PER_USER } from '../users/dto/user-fields';
import { MembershipsRepository } from '../users/memberships.repository';
import { scimFilterSql } from './protocol/filter-sql';
import { readScimPage, type ScimPage } from './protocol/list-paging';
import { badScimRequest, ScimError } from './protocol/scim-error';
import { groupPatchPlan, type GroupPatchPlan } from './scim-group-patch';
import { readGroup } from './scim-group-values';
import type { ScimGroupMember } from './scim-group.mapper';
import { GROUP_FILTER_ATTRIBUTES, ScimGroupsRepository, type MemberDelta } from './scim-groups.repository';
import { scimIfMatch } from './scim-version';

/**
 * The most members one answer lists (a group's, or a page of groups' together). SCIM has no paging
 * of members, and Okta reads groups with theirs; past this a read is 400 tooMany (a provider then
 * asks with excludedAttributes=members, and tests membership with `members.value eq`), while a
 * write, already done, answers its group without members rather than fail (docs/scim-groups.md, "Decisions").
 */
export const MAX_MEMBERS_PER_ANSWER = 10_000;

/** A group as read: its department and, when asked for and within the bound, its direct members. */
export interface ScimGroupRead {
  department: DepartmentDto;
  members?: ScimGroupMember[];
}

export interface ScimGroupPage {
  page: ScimPage;
  total: number;
  groups: ScimGroupRead[];
}

/**
 * SCIM's Groups (RFC 7644 §3) as the directory's departments: every department change goes through
 * DepartmentsService (sibling names, the depth limit, the tree lock of a move, revisions, the audit
 * event in the change's statement) and every membership change through MembershipsRepository's
 * set-based addMany and removeMany (the rules of its add and remove: the limit of departments per
 * user, the primary department, the user's revision, department.member_added/removed), all in the
 * request's one transaction.
 *
 * A change of members locks the users it adds or removes first, in id order, then the department
 * (SHARE: concurrent member changes of one group all land; a rename, move or delete waits), the
 * order every membership writer takes them in. The group's version is the department's revision:
 * members are the users' (a membership changes the user's revision, as in the REST API).
 */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly departments: DepartmentsService,
    private readonly memberships: MembershipsRepository,
    private readonly groups: ScimGroupsRepository,
    private readonly clock: Clock,
  ) {}

  /** POST /Groups: a top-level department unless the workspace extension names parentId, with its members. */
  create(organizationId: string, body: unknown, actor: AuditActor, withMembers: boolean): Promise<ScimGroupRead> {
    const group = readGroup(body);
    return this.groups.inTransaction(async () => {
      await this.lockMembersToAdd(organizationId, group.memberIds);
      const department = await asGroupError(
        () => this.departments.create(organizationId, { name: group.name, external_id: group.externalId, parent_id: group.parentId ?? null }, actor),
        'new',
      );
      await this.applyDelta(organizationId, department.department_id, { add: group.memberIds, remove: [] }, this.context(actor));
      return this.read(organizationId, department, withMembers, 'write');
    });
  }

  async get(organizationId: string, id: string, withMembers: boolean): Promise<ScimGroupRead> {
    return this.read(organizationId, await this.department(organizationId, groupId(id)), withMembers, 'read');
  }

  /** GET /Groups: the filter as one SQL condition (never a department read into memory to test it), the exact count, one page in id order. */
  async list(organizationId: string, query: { filter?: string; startIndex?: unknown; count?: unknown }, withMembers: boolean): Promise<ScimGroupPage> {
    const condition = query.filter === undefined ? Prisma.sql`TRUE` : scimFilterSql(query.filter, GROUP_FILTER_ATTRIBUTES);
    const page = readScimPage(query);
    const total = await this.groups.countMatching(organizationId, condition);
    const rows = page.count === 0 || page.offset >= total ? [] : await this.groups.matchingPage(organizationId, condition, page.offset, page.count);
    const departments = rows.map(toDepartmentDto);
    if (!withMembers) return { page, total, groups: departments.map((department) => ({ department })) };
    const members = await this.membersOf(organizationId, departments, 'read');
    return { page, total, groups: departments.map((department) => ({ department, members: members?.get(department.department_id) ?? [] })) };
  }

  /** PUT: displayName, externalId and the member set replaced (the adds and removes computed in SQL); parentId moves only when the body names it. */
  replace(organizationId: string, id: string, body: unknown, ifMatch: string | undefined, actor: AuditActor, withMembers: boolean): Promise<ScimGroupRead> {
    const group = readGroup(body);
    const plan: GroupPatchPlan = {
      name: group.name,
      externalId: group.externalId,
      ...(group.parentId === undefined ? {} : { parentId: group.parentId }),
      members: { kind: 'set', ids: new Set(group.memberIds) },
    };
    return this.change(organizationId, groupId(id), plan, scimIfMatch(ifMatch), actor, withMembers);
  }

  /** PATCH: the operations folded into one change of the department and one of its members. */
  patch(organizationId: string, id: string, body: unknown, ifMatch: string | undefined, actor: AuditActor, withMembers: boolean): Promise<ScimGroupRead> {
    return this.change(organizationId, groupId(id), groupPatchPlan(body), scimIfMatch(ifMatch), actor, withMembers);
  }

  /**
   * DELETE: the memberships removed (each a department.member_removed event) and the department
   * deleted (department.deleted), in one transaction; 409 while it has child departments
   * (CONTRACT.md section 12, where the REST API refuses any non-empty department).
   */
  async delete(organizationId: string, id: string, ifMatch: string | undefined, actor: AuditActor): Promise<void> {
    const departmentId = groupId(id);
    const requirement = scimIfMatch(ifMatch);
    await this.department(organizationId, departmentId);
    await this.groups.inTransaction(async () => {
      await this.groups.lockUsers(organizationId, await this.groups.memberIds(organizationId, departmentId));
      // UPDATE: no member can be added, nor a child created, until the delete commits.
      await this.lockedDepartment(organizationId, departmentId, 'update', requirement);
      const children = await this.groups.childCount(organizationId, departmentId);
      if (children > 0) {
        throw new ScimError(409, `The group has ${children} child group${children === 1 ? '' : 's'} (departments under it); move or delete them first. Nothing was deleted.`);
      }
      // Members added between the first read and the department's lock: their adders have committed.
      const members = await this.groups.memberIds(organizationId, departmentId);
      await this.groups.lockUsers(organizationId, members);
      await this.applyDelta(organizationId, departmentId, { add: [], remove: members }, this.context(actor));
      await asGroupError(() => this.departments.delete(organizationId, departmentId, { kind: 'none' }, actor), departmentId);
    });
  }

  private change(organizationId: string, departmentId: string, plan: GroupPatchPlan, requirement: RevisionRequirement, actor: AuditActor, withMembers: boolean) {
    return this.groups.inTransaction(async () => {
      // A missing group is 404 whatever else the request holds.
      await this.department(organizationId, departmentId);
      const delta: MemberDelta =
        plan.members.kind === 'set'
          ? await this.groups.memberDelta(organizationId, departmentId, [...plan.members.ids])
          : { add: [...plan.members.add], remove: [...plan.members.remove] };
      const found = await this.groups.lockUsers(organizationId, [...delta.add, ...delta.remove]);
      unknownMembers(delta.add, found);
      const change = {
        ...(plan.name === undefined ? {} : { name: plan.name }),
        ...(plan.externalId === undefined ? {} : { external_id: plan.externalId }),
        ...(plan.parentId === undefined ? {} : { parent_id: plan.parentId }),
      };
      let department: DepartmentDto | undefined;
      if (Object.keys(change).length > 0) department = await asGroupError(() => this.departments.update(organizationId, departmentId, change, requirement, actor), departmentId);
      else await this.lockedDepartment(organizationId, departmentId, 'share', requirement);
      await this.applyDelta(organizationId, departmentId, { add: delta.add, remove: delta.remove.filter((userId) => found.has(userId)) }, this.context(actor));
      return this.read(organizationId, department ?? (await this.department(organizationId, departmentId)), withMembers, 'write');
    });
  }

  /** Locks the users a change adds (so their memberships stay as read until commit); one the organization lacks is 400 invalidValue. */
  private async lockMembersToAdd(organizationId: string, userIds: readonly string[]): Promise<void> {
    unknownMembers(userIds, await this.groups.lockUsers(organizationId, userIds));
  }

  /** The memberships added and removed, each by the memberships' set-based statements (one each); adding a member or removing a non-member changes nothing. */
  private async applyDelta(organizationId: string, departmentId: string, delta: MemberDelta, context: AuditContext): Promise<void> {
    if (delta.add.length > 0) {
      const { limitReached } = await this.memberships.addMany(organizationId, departmentId, delta.add, MAX_DEPARTMENTS_PER_USER, context);
      if (limitReached.length > 0) {
        throw badScimRequest('invalidValue', `members: user ${limitReached[0]} is already a member of ${MAX_DEPARTMENTS_PER_USER} groups (departments), the most a user may have.`);
      }
    }
    if (delta.remove.length > 0) await this.memberships.removeMany(organizationId, departmentId, delta.remove, context);
  }

  private async lockedDepartment(organizationId: string, departmentId: string, mode: 'share' | 'update', requirement: RevisionRequirement): Promise<void> {
    const revision = await this.groups.lockDepartment(organizationId, departmentId, mode);
    if (revision === undefined) throw groupNotFound(departmentId);
    checkRevision(requirement, revision, 'group');
  }

  private department(organizationId: string, departmentId: string): Promise<DepartmentDto> {
    return asGroupError(() => this.departments.get(organizationId, departmentId), departmentId);
  }

  private async read(organizationId: string, department: DepartmentDto, withMembers: boolean, purpose: 'read' | 'write'): Promise<ScimGroupRead> {
    if (!withMembers) return { department };
    const members = await this.membersOf(organizationId, [department], purpose);
    return members === undefined ? { department } : { department, members: members.get(department.department_id) ?? [] };
  }

  /** The members of the departments by department, or undefined past MAX_MEMBERS_PER_ANSWER on a write's answer (a read is then 400 tooMany). */
  private async membersOf(organizationId: string, departments: readonly DepartmentDto[], purpose: 'read' | 'write'): Promise<Map<string, ScimGroupMember[]> | undefined> {
    if (departments.length === 0) return new Map();
    const rows = await this.groups.membersOf(
      organizationId,
      departments.map((department) => department.department_id),
      MAX_MEMBERS_PER_ANSWER + 1,
    );
    if (rows.length > MAX_MEMBERS_PER_ANSWER) {
      if (purpose === 'write') return undefined;
      throw badScimRequest(
        'tooMany',
        `The answer would list more than ${MAX_MEMBERS_PER_ANSWER} members: ask with excludedAttributes=members (and test a membership with filter=id eq "…" and members.value eq "…"), or for fewer groups with count.`,
      );
    }
    const byDepartment = new Map<string, ScimGroupMember[]>();
    for (const row of rows) {
      const list = byDepartment.get(row.departmentId) ?? [];
      list.push({ userId: row.userId, display: row.display });
      byDepartment.set(row.departmentId, list);
    }
    return byDepartment;
  }

  private context(actor: AuditActor): AuditContext {
    return { actor, at: this.clock.now() };
  }
}

/** A group id of the path, lower-cased; anything that is no uuid names no group (404). */
function groupId(id: string): string {
  const uuid = lowerCaseUuid(id);
  if (uuid === undefined) throw groupNotFound(id);
  return uuid;
}

const groupNotFound = (id: string) => new ScimError(404, `No group ${id} exists in this organization.`);

/**
 * RFC 7644 §3.5.2 has no "not found" for a value: a member that is no user of the organization is
 * a value the attribute cannot take (400 invalidValue); 404 stays the answer about the group itself.
 */
function unknownMembers(userIds: readonly string[], found: ReadonlySet<string>): void {
  const unknown = userIds.filter((userId) => !found.has(userId));
  if (unknown.length > 0) throw badScimRequest('invalidValue', `members: no user ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', …' : ''} exists in this organization.`);
}

/** The directory's refusals in SCIM's terms (names of attributes, scimType), for the group `id` (`new` on a create). */
async function asGroupError<T>(work: () => Promise<T>, id: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    switch (error.code) {
      case DirectoryError.DEPARTMENT_NAME_CONFLICT.code:
        throw new ScimError(409, 'Another group (department) under the same parent already has this displayName (compared by Unicode case folding).', 'uniqueness');
      case DirectoryError.EXTERNAL_ID_CONFLICT.code:
        throw new ScimError(409, 'Another group (department) of the organization already has this externalId.', 'uniqueness');
      case DirectoryError.PARENT_NOT_FOUND.code:
        throw badScimRequest('invalidValue', 'parentId: no group (department) with this id exists in the organization.');
      case DirectoryError.DEPARTMENT_CYCLE.code:
        throw badScimRequest('invalidValue', 'parentId: is the group itself or one of the groups below it; a group cannot move into its own subtree.');
      case DirectoryError.DEPARTMENT_TOO_DEEP.code:
        throw badScimRequest('invalidValue', `parentId: ${error.detail}`);
      case ErrorCode.NOT_FOUND.code:
        throw groupNotFound(id);
      default:
        throw error;
    }
  }
}
