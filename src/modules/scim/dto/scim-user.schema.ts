import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

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
    meta: {
      type: 'object',
      additionalProperties: false,
      required: ['resourceType', 'created', 'lastModified', 'location', 'version'],
      properties: {
        resourceType: { type: 'string', enum: ['User'] },
        created: { type: 'string', format: 'date-time' },
        lastModified: { type: 'string', format: 'date-time' },
        location: { type: 'string' },
        version: { type: 'string', description: 'A weak entity tag of the revision: W/"<revision>".', pattern: '^W/"[1-9][0-9]*"$' },
      },
    },
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
