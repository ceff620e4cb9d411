import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { scimMetaSchema } from './scim-meta.schema';

/**
 * A SCIM User resource (RFC 7643 §4.1, with the enterprise extension), loosely: the attributes the
 * directory maps to its columns are described, every other attribute of the schemas may appear
 * as the client wrote it.
 */
export const SCIM_USER_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: true,
  required: ['schemas', 'id'],
  properties: {
    schemas: { type: 'array', items: { type: 'string' } },
    id: { type: 'string', format: 'uuid' },
    externalId: { type: 'string' },
    userName: { type: 'string' },
    name: { type: 'object', additionalProperties: true, properties: { givenName: { type: 'string' }, familyName: { type: 'string' } } },
    displayName: { type: 'string' },
    emails: {
      type: 'array',
      items: { type: 'object', additionalProperties: true, properties: { value: { type: 'string' }, type: { type: 'string' }, primary: { type: 'boolean' } } },
    },
    active: { type: 'boolean' },
    groups: {
      type: 'array',
      description: 'readOnly: the user\'s departments.',
      items: { type: 'object', additionalProperties: false, required: ['value'], properties: { value: { type: 'string', format: 'uuid' }, type: { type: 'string' } } },
    },
    meta: scimMetaSchema('User'),
  },
};

/** A SCIM ListResponse (RFC 7644 §3.4.2) of `resource`. */
export const scimListResponseSchema = (resource: SchemaObject): SchemaObject => ({
  type: 'object',
  additionalProperties: false,
  required: ['schemas', 'totalResults', 'startIndex', 'itemsPerPage', 'Resources'],
  properties: {
    schemas: { type: 'array', items: { type: 'string', enum: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'] } },
    totalResults: { type: 'integer', minimum: 0 },
    startIndex: { type: 'integer', minimum: 1 },
    itemsPerPage: { type: 'integer', minimum: 0 },
    Resources: { type: 'array', items: resource },
  },
});
