import type { MemberDto } from './dto/member.dto';
import type { MemberRow } from './memberships.repository';

export function toMemberDto(row: MemberRow): MemberDto {
  return {
    user_id: row.id,
    user_name: row.userName,
    display_name: row.displayName,
    email: row.email,
    active: row.active,
    primary_department_id: row.primaryDepartmentId,
    // Revisions count up by one per change, far below 2^53.
    revision: Number(row.revision),
  };
}
