import type { UserDto } from './dto/user.dto';
import type { UserRow } from './users.repository';

export function toUserDto(row: UserRow): UserDto {
  return {
    user_id: row.id,
    user_name: row.userName,
    display_name: row.displayName,
    given_name: row.givenName,
    family_name: row.familyName,
    email: row.email,
    external_id: row.externalId,
    active: row.active,
    department_ids: row.departmentIds,
    primary_department_id: row.primaryDepartmentId,
    // Revisions count up from 1 by one per change, far below 2^53: a JSON number loses nothing.
    revision: Number(row.revision),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
