/** A supertest response, or a raw one (test/support/raw-http.ts). */
interface ErrorResponse {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** Asserts the spec's error body with the contract's status, code and error type. */
export function expectErrorBody(response: ErrorResponse, status: number, code: string, error: string): void {
  expect({ status: response.status, code: response.body.code, error: response.body.error }).toEqual({ status, code, error });
  expect(typeof response.body.detail).toBe('string');
  expect(response.body.detail.length).toBeGreaterThan(0);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toBeTruthy();
  // The contract's rule for every 503, checked wherever a test meets one.
  if (status === 503) expect(response.headers['retry-after']).toMatch(/^\d+$/);
}
