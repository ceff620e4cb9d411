import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from '../src/openapi';
import type { Database } from '../src/database/database';
import { OpenApiResponseValidator, type RecordedResponse } from './support/openapi-response-validator';
import { recordResponses } from './support/response-recorder';
import { createTenant, openTestDatabase, startTestApp, type TestApp, type TestTenant } from './support/test-app';

const DEPARTMENTS = '/api/openapi/v1/departments';

/**
 * The check every e2e answer passes (test/support/openapi-response-check.ts) fails when code and
 * document part: here the service's real answers are held to a document altered the way a drifting
 * one would be, and each difference must be named.
 */
describe('OpenAPI response validation', () => {
  let database: Database;
  let testApp: TestApp;
  let tenant: TestTenant;
  let document: OpenAPIObject;
  let recorded: RecordedResponse[];

  beforeAll(async () => {
    database = await openTestDatabase();
    testApp = await startTestApp(database);
    tenant = await createTenant(database);
    document = buildOpenApiDocument(testApp.app);
    recordResponses(testApp.app.getHttpServer(), (response) => recorded.push(response));
  });

  beforeEach(() => {
    recorded = [];
  });

  afterAll(async () => {
    await testApp.close();
    await database.close();
  });

  /** Problems of the answers recorded so far, against the document as `alter` leaves it. */
  const problemsUnder = (alter: (altered: any) => void): string[] => {
    const altered = structuredClone(document);
    alter(altered);
    const validator = new OpenApiResponseValidator(altered);
    return recorded.flatMap((response) => validator.validate(response));
  };

  const createDepartment = (name: string) =>
    testApp.http().post(DEPARTMENTS).set('Authorization', tenant.bearer).set('Idempotency-Key', `validation-${name}-${Date.now()}`).send({ name }).expect(201);

  it('finds nothing to report under the served document', async () => {
    const created = (await createDepartment('Plain')).body;
    await testApp.http().get(`${DEPARTMENTS}/${created.department_id}`).set('Authorization', tenant.bearer).expect(200);
    await testApp.http().get(`${DEPARTMENTS}?page_size=1`).set('Authorization', tenant.bearer).expect(200);
    expect(recorded).toHaveLength(3);
    expect(problemsUnder(() => {})).toEqual([]);
  });

  it('names a status the operation does not document', async () => {
    await testApp.http().get(`${DEPARTMENTS}/00000000-0000-4000-8000-000000000000`).set('Authorization', tenant.bearer).expect(404);
    const problems = problemsUnder((altered) => delete altered.paths[`${DEPARTMENTS}/{department_id}`].get.responses['404']);
    expect(problems).toEqual([expect.stringMatching(/^status 404 is not documented for GET \/api\/openapi\/v1\/departments\/\{department_id\} \(documented: 200, 304, 400, /)]);
  });

  it('names a field the code sends but the schema does not list, and a field of the wrong type', async () => {
    await createDepartment('Fields');
    const problems = problemsUnder((altered) => {
      const schema = altered.components.schemas.DepartmentDto;
      delete schema.properties.external_id;
      schema.required = schema.required.filter((name: string) => name !== 'external_id');
      schema.properties.order = { type: 'string' };
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('must NOT have additional properties (external_id)');
    expect(problems[0]).toContain('/order must be string');
  });

  it('accepts null where the document says nullable, and names null where it does not', async () => {
    await createDepartment('Nullable');
    expect(problemsUnder(() => {})).toEqual([]);
    const problems = problemsUnder((altered) => delete altered.components.schemas.DepartmentDto.properties.parent_id.nullable);
    expect(problems).toEqual([expect.stringContaining('/parent_id must be string')]);
  });

  it('names a required header that is missing and a header value outside its schema', async () => {
    const key = `validation-headers-${Date.now()}`;
    const send = () => testApp.http().post(DEPARTMENTS).set('Authorization', tenant.bearer).set('Idempotency-Key', key).send({ name: 'Headers' }).expect(201);
    await send();
    await send();
    const problems = problemsUnder((altered) => {
      const replayed = altered.paths[DEPARTMENTS].post.responses['201'].headers['Idempotent-Replayed'];
      replayed.required = true;
      replayed.schema = { type: 'string', enum: ['yes'] };
    });
    expect(problems).toEqual(['required header Idempotent-Replayed is missing', 'header Idempotent-Replayed: (root) must be equal to one of the allowed values']);
  });

  it('names a content type the response does not document', async () => {
    await createDepartment('Content');
    const problems = problemsUnder((altered) => {
      const created = altered.paths[DEPARTMENTS].post.responses['201'];
      created.content = { 'application/xml': created.content['application/json'] };
    });
    expect(problems).toEqual(['content type application/json is not documented (documented: application/xml)']);
  });

  it('holds an answer outside the document to the error body only when it is an error', async () => {
    await testApp.http().get('/api/openapi/v1/no-such-thing').expect(404);
    await testApp.http().get('/healthz').expect(200);
    const problems = problemsUnder((altered) => {
      const errorBody = altered.components.schemas.ErrorBodyDto;
      errorBody.properties.trace_id = { type: 'string' };
      errorBody.required.push('trace_id');
    });
    expect(problems).toEqual(["body: (root) must have required property 'trace_id'"]);
  });
});
