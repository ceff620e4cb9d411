import type { DepartmentRow } from './departments.repository';
import type { DepartmentDto } from './dto/department.dto';

export function toDepartmentDto(department: DepartmentRow): DepartmentDto {
  return {
    department_id: department.id,
    external_id: department.externalId,
    name: department.name,
    // Server-assigned orders count up by one per sibling; a client's order is at most 2^53 − 1
    // (JSON input, CONTRACT.md section 9): a JSON number loses nothing.
    order: Number(department.order),
    parent_id: department.parentId,
    revision: Number(department.revision),
    created_at: department.createdAt.toISOString(),
    updated_at: department.updatedAt.toISOString(),
  };
}
