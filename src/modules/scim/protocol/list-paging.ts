import { badScimRequest } from './scim-error';

export const SCIM_LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The most resources one list page holds: a larger `count` gets this many (ServiceProviderConfig's filter.maxResults). */
export const SCIM_MAX_PAGE_SIZE = 100;

export interface ScimPage {
  /** 1-based, as the client sent it (at least 1). */
  startIndex: number;
  /** How many resources to return, 0 to SCIM_MAX_PAGE_SIZE; 0 asks for the total alone. */
  count: number;
  /** startIndex − 1: the rows to skip. */
  offset: number;
}

export interface ScimListResponse<Resource> {
  schemas: [typeof SCIM_LIST_RESPONSE_SCHEMA];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: Resource[];
}

const INTEGER = /^[+-]?\d+$/;

/**
 * The page `startIndex` and `count` ask for (RFC 7644 §3.4.2.4): startIndex below 1 is 1, count
 * below 0 is 0 and above the maximum the maximum, absent count the maximum. A value that is no
 * integer is 400 invalidValue, and so is a parameter sent twice.
 */
export function readScimPage(query: { startIndex?: unknown; count?: unknown }): ScimPage {
  const startIndex = Math.max(1, integerParameter('startIndex', query.startIndex) ?? 1);
  if (!Number.isSafeInteger(startIndex)) throw badScimRequest('invalidValue', `startIndex must be at most ${Number.MAX_SAFE_INTEGER}.`);
  const count = Math.min(SCIM_MAX_PAGE_SIZE, Math.max(0, integerParameter('count', query.count) ?? SCIM_MAX_PAGE_SIZE));
  return { startIndex, count, offset: startIndex - 1 };
}

function integerParameter(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !INTEGER.test(value)) throw badScimRequest('invalidValue', `${name} must be an integer, given once.`);
  return Number(value);
}

/** The ListResponse of one page: `resources` are that page's, `totalResults` counts every match. */
export function scimListResponse<Resource>(resources: Resource[], totalResults: number, page: ScimPage): ScimListResponse<Resource> {
  return { schemas: [SCIM_LIST_RESPONSE_SCHEMA], totalResults, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources };
}
