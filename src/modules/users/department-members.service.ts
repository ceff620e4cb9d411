import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, startOfPage, type SortValueRange } from '../../common/pagination/page-token';
import type { MemberPageDto } from './dto/member-page.dto';
import type { ListMembersQueryDto } from './dto/list-members-query.dto';
import type { UserDto } from './dto/user.dto';
import { MAX_DEPARTMENTS_PER_USER } from './dto/user-fields';
import { MembershipsError } from './memberships.errors';
import { departmentNotFound, MembershipsRepository, USER_WITH_DEPARTMENTS, userNotFound } from './memberships.repository';
import { toUserDto } from './user.mapper';

// Member pages are keyset on user_id alone: the token's sort value is always 0.
const BY_USER_ID: SortValueRange = { min: 0n, max: 0n };

/** Memberships from the department's side: add, remove, list (CONTRACT.md section 11, docs/directory.md). */
@Injectable()
export class DepartmentMembersService {
  constructor(
    private readonly memberships: MembershipsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Adds the membership (added: true) or finds it in place (added: false, nothing changed, no
   * event), under the user's row lock: concurrent adds of one user take turns, so none passes the
   * limit of memberships another has just reached. The lock, the add and the COMMIT go to the
   * database together (one round trip): the add needs no answer of the lock's.
   */
  async add(organizationId: string, departmentId: string, userId: string, actor: AuditActor): Promise<{ added: boolean; member: UserDto }> {
    const result = await this.memberships.inTransaction(async () => {
      const [, added] = await Promise.all([
        this.memberships.lockUser(organizationId, userId),
        this.memberships.add(organizationId, departmentId, userId, MAX_DEPARTMENTS_PER_USER, { actor, at: this.clock.now() }),
      ]);
      return added;
    });
    if (!result) {
      if (!(await this.memberships.departmentExists(organizationId, departmentId))) throw departmentNotFound(departmentId);
      throw userNotFound(userId);
    }
    if (result === 'limit_reached') {
      throw new AppError(MembershipsError.USER_DEPARTMENT_LIMIT_REACHED, `User ${userId} is already a member of ${MAX_DEPARTMENTS_PER_USER} departments, the most a user may have.`, {
        field: 'user_id',
        reason: 'invalid_value',
      });
    }
    return { added: result.added, member: toUserDto(result.member) };
  }

  /**
   * Under the user's row lock, so the remaining membership that becomes primary is read after every
   * concurrent add or removal of the same user has committed; the lock, the removal and the COMMIT
   * go together, as an add's do.
   */
  async remove(organizationId: string, departmentId: string, userId: string, actor: AuditActor): Promise<void> {
    const [user, removed] = await this.memberships.inTransaction(() =>
      Promise.all([this.memberships.lockUser(organizationId, userId), this.memberships.remove(organizationId, departmentId, userId, { actor, at: this.clock.now() })]),
    );
    if (removed) return;
    if (!(await this.memberships.departmentExists(organizationId, departmentId))) throw departmentNotFound(departmentId);
    if (!user) throw userNotFound(userId);
    throw userNotFound(userId, `User ${userId} is not a member of department ${departmentId}.`);
  }

  /** Keyset pages on user_id; an empty page is followed by a look at the department, to tell "no members" from "no such department". */
  async list(organizationId: string, departmentId: string, query: ListMembersQueryDto): Promise<MemberPageDto> {
    const recursive = query.recursive === 'true';
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['department-members', organizationId, departmentId, String(recursive)];
    const position = startOfPage(tokenQuery, BY_USER_ID, query.page_token, 'recursive');
    const rows = await this.memberships.usersOfDepartmentPage(USER_WITH_DEPARTMENTS, { organizationId, departmentId, recursive }, position?.id, pageSize + 1);
    if (rows.length === 0 && !(await this.memberships.departmentExists(organizationId, departmentId))) throw departmentNotFound(departmentId);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: '0', id: row.id }));
    return { items: page.items.map(toUserDto), next_page_token: page.next_page_token };
  }
}
