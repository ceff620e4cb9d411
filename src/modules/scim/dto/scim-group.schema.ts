import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { scimMetaSchema } from './scim-meta.schema';
import { SCIM_SCHEMA } from '../protocol/schemas';

/**
 * A SCIM Group resource (RFC 7643 §4.2) as the directory's department, with the workspace
 * extension that names its parent. `attributes`/`excludedAttributes` may leave any of it out
 * but schemas and id.
 */
export const SCIM_GROUP_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['schemas', 'id'],
  properties: {
    schemas: { type: 'array', items: { type: 'string' } },
    id: { type: 'string', format: 'uuid', description: "The department's id (department_id in the REST API)." },
    externalId: { type: 'string', description: "The department's external_id." },
    displayName: { type: 'string', description: "The department's name." },
    members: {
      type: 'array',
      description: 'The direct members (users); absent when there are none or when excluded.',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          value: { type: 'string', format: 'uuid' },
          $ref: { type: 'string' },
          type: { type: 'string', enum: ['User'] },
          display: { type: 'string', description: "The user's displayName, else its userName." },
        },
      },
    },
    [SCIM_SCHEMA.workspaceGroup]: {
      type: 'object',
      additionalProperties: false,
      description: 'Present for a department under another: its parent.',
      properties: { parentId: { type: 'string', format: 'uuid' } },
    },
    meta: scimMetaSchema('Group'),
  },
};

/** A ListResponse (RFC 7644 §3.4.2) of Groups. */
export const SCIM_GROUP_LIST_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['schemas', 'totalResults', 'startIndex', 'itemsPerPage', 'Resources'],
  properties: {
    schemas: { type: 'array', items: { type: 'string', enum: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'] } },
    totalResults: { type: 'integer', minimum: 0 },
    startIndex: { type: 'integer', minimum: 1 },
    itemsPerPage: { type: 'integer', minimum: 0 },
    Resources: { type: 'array', items: SCIM_GROUP_SCHEMA },
  },
};
