import type { DepartmentRow } from './departments.repository';
import type { DepartmentDto } from './dto/department.dto';

export function toDepartmentDto(department: DepartmentRow): DepartmentDto {
  return {
    department_id: department.id,
    external_id: department.externalId,
    name: department.name,
    // Orders count up from 1 by one per sibling, far below 2^53: a JSON number loses nothing.
    order: Number(department.order),
    parent_id: department.parentId,
  };
}
