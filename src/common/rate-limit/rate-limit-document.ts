import type { OpenAPIObject } from '@nestjs/swagger';
import type { HeadersObject, OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { REQUIRED_SCOPE_EXTENSION } from '../auth/auth.decorators';

const RATE_LIMIT_HEADERS: HeadersObject = {
  'RateLimit-Policy': {
    description: 'The rate limit of the API key (draft-ietf-httpapi-ratelimit-headers-11): `"default";q=<requests>;w=<seconds>`.',
    schema: { type: 'string', example: '"default";q=600;w=60' },
  },
  RateLimit: {
    description: 'What is left of it: `"default";r=<requests remaining>;t=<seconds until the budget is restored>`.',
    schema: { type: 'string', example: '"default";r=599;t=60' },
  },
};

const RETRY_AFTER_HEADER: HeadersObject = {
  'Retry-After': { description: 'Seconds until the API key (or, for requests without a valid key, the client address) may call again.', schema: { type: 'integer', minimum: 0 } },
};

/**
 * Documents the rate-limit headers once for every operation that needs an API key: on each of its
 * answers (but 401, refused before the key is known, so before the limit is counted; absent when
 * RATE_LIMIT_PER_MINUTE is 0), and Retry-After on its 429. Run after the cross-cutting errors are
 * added, so that their answers get the headers too.
 */
export function documentRateLimitHeaders(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as OperationObject[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      if (typeof (operation as unknown as Record<string, unknown>)[REQUIRED_SCOPE_EXTENSION] !== 'string') continue;
      for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
        if (status === '401') continue;
        response.headers = { ...response.headers, ...RATE_LIMIT_HEADERS, ...(status === '429' ? RETRY_AFTER_HEADER : {}) };
      }
    }
  }
}
