import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { SCIM_MAX_PAGE_SIZE } from './protocol/list-paging';

const text = { required: false, schema: { type: 'string' as const } };

/** A SCIM list's queries (RFC 7644 §3.4.2): the filter, its example naming the resource's own attribute, then startIndex and count. */
export const ApiScimListQueries = (filterExample: string) =>
  // Applied in the order stacked decorators would be (the last first), so the document lists filter, startIndex, count.
  applyDecorators(
    ApiQuery({
      name: 'count',
      required: false,
      schema: { type: 'integer' },
      description: `Results per page, 0 to ${SCIM_MAX_PAGE_SIZE} (default ${SCIM_MAX_PAGE_SIZE}; above ${SCIM_MAX_PAGE_SIZE} is ${SCIM_MAX_PAGE_SIZE}).`,
    }),
    ApiQuery({ name: 'startIndex', required: false, schema: { type: 'integer' }, description: '1-based index of the first result (default 1; below 1 is 1).' }),
    ApiQuery({ name: 'filter', ...text, description: `A SCIM filter, e.g. \`${filterExample}\`.` }),
  );

/** RFC 7644 §3.9 on every operation that answers the resource: what each parameter does for it. */
export const ApiScimAttributeSelection = (descriptions: { attributes: string; excludedAttributes: string }) =>
  applyDecorators(ApiQuery({ name: 'attributes', ...text, description: descriptions.attributes }), ApiQuery({ name: 'excludedAttributes', ...text, description: descriptions.excludedAttributes }));
