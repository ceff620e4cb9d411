import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { checkRevision, type RevisionRequirement } from '../../common/http/write-preconditions';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import type { CreateUserDto } from './dto/create-user.dto';
import type { UserDto } from './dto/user.dto';
import type { UserPageDto } from './dto/user-page.dto';
import type { ListUsersQueryDto } from './dto/list-users-query.dto';
import type { UpdateUserDto } from './dto/update-user.dto';
import { toUserDto } from './user.mapper';
import { UsersRepository } from './users.repository';

const notFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No user ${id} exists in this organization.`);

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly clock: Clock,
  ) {}

  /** Runs in the caller's transaction (the idempotency record's). */
  async create(organizationId: string, input: CreateUserDto, actor: AuditActor): Promise<UserDto> {
    return toUserDto(await this.users.insert(organizationId, input.user_name, { actor, at: this.clock.now() }));
  }

  async get(organizationId: string, id: string): Promise<UserDto> {
    const row = await this.users.findById(organizationId, id);
    if (!row) throw notFound(id);
    return toUserDto(row);
  }

  /** Keyset pagination on (seq, id), one row more than the page to learn whether another page follows. */
  async list(organizationId: string, query: ListUsersQueryDto): Promise<UserPageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['users', organizationId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'organization');
    const rows = await this.users.list(organizationId, position, pageSize + 1);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(toUserDto), next_page_token: page.next_page_token };
  }

  /**
   * Checks the revision the request requires, then renames, revision + 1. A name equal to the
   * stored one (or none) is no change: the user as stored, no event, revision and
   * updated_at untouched.
   */
  update(organizationId: string, id: string, input: UpdateUserDto, requirement: RevisionRequirement, actor: AuditActor): Promise<UserDto> {
    return this.users.withLocked(organizationId, id, async (current) => {
      if (!current) throw notFound(id);
      checkRevision(requirement, current.revision, 'user');
      if (input.user_name === undefined || input.user_name === current.userName) return toUserDto(current);
      return toUserDto(await this.users.rename(organizationId, current, input.user_name, { actor, at: this.clock.now() }));
    });
  }

  /** Checks the revision the request requires, then deletes; the name is free again at once. */
  delete(organizationId: string, id: string, requirement: RevisionRequirement, actor: AuditActor): Promise<void> {
    return this.users.withLocked(organizationId, id, async (current) => {
      if (!current) throw notFound(id);
      checkRevision(requirement, current.revision, 'user');
      await this.users.delete(organizationId, current, { actor, at: this.clock.now() });
    });
  }
}
