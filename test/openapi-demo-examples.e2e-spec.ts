import { serveDemoExamples } from '../src/bootstrap/demo-examples';
import { seedDemo } from '../src/bootstrap/demo-seed';
import { NEEDS_A_FILE, prefilledRequests, secondPressStatus, type OpenApiDocument as Document, type PrefilledRequest } from './support/prefilled-requests';
import { useTestApp } from './support/test-app';

describe('the OpenAPI document of the embedded demo', () => {
  const fixture = useTestApp();
  let demoKey: string;

  const documentNow = async () => (await fixture.http().get('/docs-json').expect(200)).body as Document;

  const send = (request: PrefilledRequest) => {
    const call = fixture.http()[request.method as 'get'](request.path).set('Authorization', `Bearer ${demoKey}`).set(request.headers);
    return request.body === undefined ? call : call.send(request.body as object);
  };

  const outcome = async (request: PrefilledRequest) => {
    const response = await send(request);
    return response.status >= 200 && response.status < 300 ? '2xx' : `${response.status} ${JSON.stringify(response.body)}`;
  };

  /** Each request as prefilled, pressed twice: 2xx both times, but the second press of a delete (404) or a SCIM create (409), as their descriptions say. */
  const executeTwice = async (requests: PrefilledRequest[]) => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const request of requests) {
      for (const press of [1, 2]) {
        const answer = await outcome(request);
        const refused = press === 2 ? secondPressStatus(request.method, request.label.split(' ')[1]) : undefined;
        outcomes.push(`${request.label} #${press}: ${refused ? answer.slice(0, 3) : answer}`);
        expected.push(`${request.label} #${press}: ${refused ?? '2xx'}`);
      }
    }
    expect(outcomes).toEqual(expected);
  };

  it('is generic until the demo is served: no path parameter or Idempotency-Key carries an example', async () => {
    const examples = Object.values((await documentNow()).paths)
      .flatMap((pathItem) => Object.values(pathItem))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((parameter) => (parameter.in === 'path' || parameter.name === 'Idempotency-Key') && parameter.example !== undefined);
    expect(examples).toEqual([]);
  });

  it('answers 2xx to every operation sent as the document prefills it, twice, in the document\'s order and, after a new load, in reverse', async () => {
    const seed = await seedDemo(fixture.database.sql);
    demoKey = seed.apiKey;
    await serveDemoExamples(fixture.app.app, seed.organizationId);

    const document = await documentNow();
    const first = prefilledRequests(document);
    expect(first).toHaveLength(Object.values(document.paths).flatMap((pathItem) => Object.keys(pathItem)).length - NEEDS_A_FILE.size);
    // Every path parameter is filled in.
    expect(first.filter((request) => /\{/.test(request.path)).map((request) => request.label)).toEqual([]);
    await executeTwice(first);
    // A new load of the page: the deleted rows are back under new ids, the Idempotency-Keys are new.
    const second = prefilledRequests(await documentNow());
    expect(second.find((request) => request.label === 'POST /api/openapi/v1/departments')!.headers['Idempotency-Key']).not.toBe(
      first.find((request) => request.label === 'POST /api/openapi/v1/departments')!.headers['Idempotency-Key'],
    );
    await executeTwice(second.reverse());
  }, 60_000);

  it('names the demo\'s rows in the request bodies\' other examples, or says what to type first', async () => {
    const document = await documentNow();
    const examplesOf = (path: string, method: string) => document.paths[path][method].requestBody!.content['application/json'].examples!;
    const placeholder = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    const suite = examplesOf('/api/openapi/v1/expert-suites/{resourceId}', 'patch');
    expect(JSON.stringify(suite.categorize.value)).not.toContain(placeholder);
    expect(suite.applyPackage).toMatchObject({ summary: expect.stringContaining('upload a package first') });
    expect(suite.guarded).toMatchObject({ summary: expect.stringContaining('type the revision you read first') });
    const department = examplesOf('/api/openapi/v1/departments', 'post');
    expect(JSON.stringify(department.child.value)).not.toContain(placeholder);
    expect(department.child).toMatchObject({ description: expect.stringContaining('type a new Idempotency-Key first') });
    expect(JSON.stringify(examplesOf('/api/openapi/v1/departments/{department_id}', 'patch').move.value)).not.toContain(placeholder);
    expect(JSON.stringify(examplesOf('/api/openapi/v1/users/{user_id}', 'patch').departments.value)).not.toContain(placeholder);
  });

  it('answers 2xx to every other named example as printed, typing only what its label asks for (a new Idempotency-Key)', async () => {
    const document = await documentNow();
    const outcomes: string[] = [];
    for (const request of prefilledRequests(document)) {
      const [method, template] = request.label.split(' ');
      const examples = Object.entries(document.paths[template][method.toLowerCase()].requestBody?.content['application/json']?.examples ?? {}).slice(1);
      for (const [name, example] of examples as [string, { value: unknown; summary: string; description?: string }][]) {
        // Labelled with a value only the caller knows (the revision it read, a package it uploaded).
        if (/first\)$/.test(example.summary)) continue;
        const headers = /type a new Idempotency-Key first/.test(example.description ?? '') ? { ...request.headers, 'Idempotency-Key': fixture.newIdempotencyKey() } : request.headers;
        outcomes.push(`${request.label} ${name}: ${await outcome({ ...request, headers, body: example.value })}`);
      }
    }
    expect(outcomes.length).toBeGreaterThanOrEqual(8);
    expect(outcomes.filter((line) => !line.endsWith(': 2xx'))).toEqual([]);
  });
});
