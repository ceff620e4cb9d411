import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** A resource's `meta` (RFC 7643 §3.1) as the service answers it; `version` is the weak ETag of its revision. */
export function scimMetaSchema(resourceType: 'User' | 'Group'): SchemaObject {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['resourceType', 'created', 'lastModified', 'location', 'version'],
    properties: {
      resourceType: { type: 'string', enum: [resourceType] },
      created: { type: 'string', format: 'date-time' },
      lastModified: { type: 'string', format: 'date-time' },
      location: { type: 'string' },
      version: { type: 'string', description: 'A weak entity tag of the revision: W/"<revision>".', pattern: '^W/"[1-9][0-9]*"$' },
    },
  };
}
