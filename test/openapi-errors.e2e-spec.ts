import type { Database } from '../src/database/database';
import { Registries } from '../src/common/registries/registries';
import { documentedErrorCodes } from './support/api-conventions';
import { openTestDatabase, startTestApp, type TestApp } from './support/test-app';

type Operation = { operationId: string; 'x-required-scope'?: string; requestBody?: { content: Record<string, unknown> }; responses: Record<string, Response> };
type Examples = Record<string, { value: { code?: string; status?: string; scimType?: string } }>;
type Response = { description: string; content?: Record<string, { schema?: { $ref?: string }; examples?: Examples }> };

/** The errors of the global layers are documented once, by the OpenAPI post-processing, on every operation they apply to. */
describe('OpenAPI: cross-cutting errors', () => {
  let database: Database;
  let testApp: TestApp;
  let document: { paths: Record<string, Record<string, Operation>> };
  let operations: Operation[];
  /** The SCIM operations (/scim/v2), whose errors are documented in SCIM's body instead. */
  let scimOperations: Operation[];

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database);
    document = (await testApp.http().get('/docs-json').expect(200)).body as typeof document;
    const onPaths = (scim: boolean) =>
      Object.entries(document.paths)
        .filter(([path]) => path.startsWith('/scim/v2') === scim)
        .flatMap(([, pathItem]) => Object.values(pathItem));
    operations = onPaths(false);
    scimOperations = onPaths(true);
  });

  afterAll(async () => {
    await testApp.close();
    await database.close();
  });

  const examplesOf = (operation: Operation, status: string) =>
    Object.values(operation.responses[status]?.content?.['application/json']?.examples ?? {}).map((example) => example.value.code);
  const writesOf = (paths: typeof document.paths) =>
    Object.entries(paths).flatMap(([path, pathItem]) =>
      path.startsWith('/scim/v2') ? [] : Object.entries(pathItem).filter(([method, operation]) => ['post', 'put', 'patch'].includes(method) && operation.requestBody?.content['multipart/form-data'] === undefined),
    );

  it('gives every operation that needs a key 401, 403 naming its scope, 429 and 503, each with its example', () => {
    const scoped = operations.filter((operation) => operation['x-required-scope'] !== undefined);
    expect(scoped.length).toBeGreaterThanOrEqual(8);
    for (const operation of scoped) {
      expect({ id: operation.operationId, codes: [examplesOf(operation, '401'), examplesOf(operation, '403'), examplesOf(operation, '429')] }).toEqual({
        id: operation.operationId,
        codes: [['UNAUTHENTICATED'], ['INSUFFICIENT_SCOPE'], ['RATE_LIMITED']],
      });
      // The database's 503, and any an operation documents itself (createUpload: the instance is busy receiving uploads).
      expect(examplesOf(operation, '503')).toEqual(operation.operationId === 'createUpload' ? ['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'] : ['SERVICE_UNAVAILABLE']);
      expect(operation.responses['403'].description).toContain(operation['x-required-scope']);
    }
  });

  it('gives every operation, public ones too, 500 INTERNAL_ERROR with its example', () => {
    for (const operation of operations) expect({ id: operation.operationId, codes: examplesOf(operation, '500') }).toEqual({ id: operation.operationId, codes: ['INTERNAL_ERROR'] });
  });

  it('gives every write that is no upload INVALID_JSON, 413 and 415, beside its own 400s (a body sent to a bodiless action is read too)', () => {
    const withJsonBody = operations.filter((operation) => examplesOf(operation, '400').includes('INVALID_JSON'));
    // Derived from the document: every write whose body is not a multipart upload, with a JSON body or none.
    const writes = writesOf(document.paths);
    expect(withJsonBody.map((operation) => operation.operationId).sort()).toEqual(writes.map(([, operation]) => operation.operationId).sort());
    expect(withJsonBody.length).toBeGreaterThanOrEqual(2);
    for (const operation of withJsonBody) {
      expect(examplesOf(operation, '400')).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'INVALID_JSON']));
      expect(examplesOf(operation, '413')).toEqual(['PAYLOAD_TOO_LARGE']);
      expect(examplesOf(operation, '415')).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
      expect(operation.responses['400'].description).toContain('`INVALID_JSON`');
    }
  });

  it('documents no JSON body errors on reads, deletes and public routes, and keeps an operation\'s own wording of a shared code', () => {
    const reads = Object.entries(document.paths).flatMap(([path, pathItem]) =>
      path.startsWith('/scim/v2') ? [] : Object.entries(pathItem).flatMap(([method, operation]) => (['post', 'put', 'patch'].includes(method) ? [] : [operation])),
    );
    for (const operation of reads) expect(examplesOf(operation, '400')).not.toContain('INVALID_JSON');
    const publicOperations = operations.filter((operation) => operation['x-required-scope'] === undefined);
    for (const operation of publicOperations) expect(operation.responses['401']).toBeUndefined();
    const metering = operations.find((operation) => operation.operationId === 'getMeteringPolicy')!;
    expect(metering.responses['503'].description.match(/SERVICE_UNAVAILABLE/g)).toHaveLength(1);
    expect(metering.responses['503'].description).toContain('no cached policy');
  });

  it('documents the SCIM operations\' errors, the global layers\' included, in SCIM\'s error body and media type, with the scimType of each example where one applies', () => {
    expect(scimOperations.length).toBeGreaterThanOrEqual(6);
    for (const operation of scimOperations) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect({ id: operation.operationId, statuses: errors.map(([status]) => status) }).toEqual({
        id: operation.operationId,
        statuses: expect.arrayContaining(['401', '403', '429', '500', '503']),
      });
      for (const [status, response] of errors) {
        expect({ id: operation.operationId, status, mediaTypes: Object.keys(response.content ?? {}), schema: response.content?.['application/scim+json']?.schema }).toEqual({
          id: operation.operationId,
          status,
          mediaTypes: ['application/scim+json'],
          schema: { $ref: '#/components/schemas/ScimErrorDto' },
        });
        for (const example of Object.values(response.content!['application/scim+json'].examples ?? {})) expect(example.value.status).toBe(status);
      }
    }
    const createUser = scimOperations.find((operation) => operation.operationId === 'scimCreateUser')!;
    const scimTypes = (status: string) => Object.values(createUser.responses[status].content!['application/scim+json'].examples!).map((example) => example.value.scimType);
    expect(scimTypes('409')).toEqual(['uniqueness']);
    expect(scimTypes('400')).toEqual(expect.arrayContaining(['invalidValue', 'invalidSyntax']));
  });

  it('documents every defined error code: in docs/api-conventions.md with its status, or on an operation that answers it', () => {
    const inTable = new Set(documentedErrorCodes().map(({ code }) => code));
    const onOperations = new Set(operations.flatMap((operation) => Object.keys(operation.responses).flatMap((status) => examplesOf(operation, status).map((code) => `${code} ${status}`))));
    const undocumented = testApp.app.get(Registries).errors.all.filter(({ code, status }) => !inTable.has(code) && !onOperations.has(`${code} ${status}`));
    expect(undocumented).toEqual([]);
  });
});
