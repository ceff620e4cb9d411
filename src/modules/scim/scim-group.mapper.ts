import type { DepartmentDto } from '../directory/dto/department.dto';
import { SCIM_SCHEMA } from './protocol/schemas';
import { SCIM_BASE_PATH } from './scim-http';
import type { ScimObject } from './scim-group-values';
import { scimVersion } from './scim-version';

/** The address of a group as a SCIM resource: its Location and meta.location. */
export const scimGroupLocation = (baseUrl: string, id: string) => `${baseUrl}${SCIM_BASE_PATH}/Groups/${id}`;

/** A direct member as a Group lists it. */
export interface ScimGroupMember {
  userId: string;
  display: string;
}

/**
 * A department as a SCIM Group: name as displayName, external_id as externalId, its direct
 * members (when read and any: RFC 7643 §2.5 writes no empty attribute), its parent in the workspace
 * extension (a top-level department has none), and
 * meta with the department's revision as the weak version. A department made or changed through
 * the REST API reads the same way.
 */
export function toScimGroup(department: DepartmentDto, members: readonly ScimGroupMember[] | undefined, baseUrl: string): ScimObject {
  const nested = department.parent_id !== null;
  return {
    schemas: nested ? [SCIM_SCHEMA.group, SCIM_SCHEMA.workspaceGroup] : [SCIM_SCHEMA.group],
    id: department.department_id,
    ...(department.external_id === null ? {} : { externalId: department.external_id }),
    displayName: department.name,
    ...(members === undefined || members.length === 0
      ? {}
      : { members: members.map((member) => ({ value: member.userId, $ref: `${baseUrl}${SCIM_BASE_PATH}/Users/${member.userId}`, type: 'User', display: member.display })) }),
    ...(nested ? { [SCIM_SCHEMA.workspaceGroup]: { parentId: department.parent_id } } : {}),
    meta: {
      resourceType: 'Group',
      created: department.created_at,
      lastModified: department.updated_at,
      location: scimGroupLocation(baseUrl, department.department_id),
      version: scimVersion(BigInt(department.revision)),
    },
  };
}
