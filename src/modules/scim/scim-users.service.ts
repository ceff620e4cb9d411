import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { lowerCaseUuid } from '../../common/validation/string-rules';
import type { UserRow } from '../users/users.repository';
import { UsersService, type UserRewrite } from '../users/users.service';
import { Prisma } from '../../generated/prisma/client';
import { scimFilterSql } from './protocol/filter-sql';
import { readScimPage, type ScimPage } from './protocol/list-paging';
import { canonicalUser } from './scim-user-attributes';
import { USER_FILTER_ATTRIBUTES } from './scim-users.repository';
import { toScimUser } from './scim-user.mapper';
import { columnPatch, patchedUser } from './scim-user-patch';
import { scimUserValues } from './scim-user-values';
import { scimIfMatch } from './scim-version';

/**
 * SCIM's Users (RFC 7644 §3) as the directory's users: every read and write goes through
 * UsersService, so the directory's rules (limits, caseless user names, revisions, the audit event
 * in the change's statement, webhook deliveries) hold whichever door a change comes through.
 * Answers rows; the controller writes them as resources.
 */
@Injectable()
export class ScimUsersService {
  constructor(private readonly users: UsersService) {}

  /** POST /Users: 409 uniqueness (the REST API's USER_NAME_CONFLICT, EXTERNAL_ID_CONFLICT) for a taken userName or externalId, so a provider's retry creates nothing twice. */
  create(organizationId: string, body: unknown, actor: AuditActor): Promise<UserRow> {
    const { fields, scimAttributes } = scimUserValues(canonicalUser(body));
    return this.users.add(
      organizationId,
      {
        userName: fields.user_name,
        displayName: fields.display_name,
        givenName: fields.given_name,
        familyName: fields.family_name,
        email: fields.email,
        externalId: fields.external_id,
        active: fields.active,
        departmentIds: [],
        primaryDepartmentId: null,
        scimAttributes,
      },
      actor,
    );
  }

  /**
   * GET /Users: the users the filter keeps (all without one), translated to SQL and counted there
   * (no organization's users are read into memory), one page of them from startIndex.
   */
  async list(organizationId: string, query: { filter?: string; startIndex?: unknown; count?: unknown }): Promise<{ page: ScimPage; total: number; rows: UserRow[] }> {
    const page = readScimPage(query);
    const condition = query.filter === undefined ? Prisma.sql`TRUE` : scimFilterSql(query.filter, USER_FILTER_ATTRIBUTES);
    const { total, rows } = await this.users.matching(organizationId, condition, page.offset, page.count);
    return { page, total, rows };
  }

  get(organizationId: string, id: string): Promise<UserRow> {
    return this.users.getRow(organizationId, userId(id));
  }

  /** PUT: the body replaces the user's attributes (its departments stay: groups are readOnly on a User). */
  replace(organizationId: string, id: string, body: unknown, ifMatch: string | undefined, actor: AuditActor): Promise<UserRow> {
    const user = canonicalUser(body);
    return this.rewrite(organizationId, id, (current) => scimUserValues(user, current), ifMatch, actor);
  }

  /**
   * PATCH: operations that only set columns (columnPatch) as the REST API's PATCH, in one
   * statement; any other, applied to the user as it is stored (read again, and applied again, when
   * another writer came first).
   */
  patch(organizationId: string, id: string, body: unknown, ifMatch: string | undefined, actor: AuditActor): Promise<UserRow> {
    const columns = columnPatch(body);
    if (columns !== undefined) return this.users.updateRow(organizationId, userId(id), columns, scimIfMatch(ifMatch), actor);
    // The resource's meta.location is no attribute a PATCH may change: no base URL is needed for it here.
    return this.rewrite(organizationId, id, (current) => scimUserValues(canonicalUser(patchedUser(toScimUser(current, ''), body)), current), ifMatch, actor);
  }

  delete(organizationId: string, id: string, ifMatch: string | undefined, actor: AuditActor): Promise<void> {
    return this.users.delete(organizationId, userId(id), scimIfMatch(ifMatch), actor);
  }

  private rewrite(organizationId: string, id: string, change: (current: UserRow) => UserRewrite, ifMatch: string | undefined, actor: AuditActor): Promise<UserRow> {
    return this.users.rewrite(organizationId, userId(id), change, scimIfMatch(ifMatch), actor);
  }
}

/** A user id of the path, lower-cased; anything that is no uuid names no user (404, as RFC 7644 answers an unknown resource). */
function userId(id: string): string {
  const uuid = lowerCaseUuid(id);
  if (uuid === undefined) throw new AppError(ErrorCode.NOT_FOUND, `No user ${id} exists in this organization.`);
  return uuid;
}
