import { randomUUID } from 'node:crypto';
import { expectErrorBody } from './support/error-body';
import { useTestApp } from './support/test-app';

const DEPARTMENTS = '/api/openapi/v1/departments';
const SUITES = '/api/openapi/v1/expert-suites';
const METERING = '/api/openapi/v1/metering-policy';

type Operation = { operationId: string; parameters?: Array<{ in: string; name: string }> };

describe('query parameters, conditional writes and duplicate JSON members', () => {
  const fixture = useTestApp();

  describe('unknown query parameters', () => {
    it('are 400 VALIDATION_FAILED unknown_field naming the parameter on the metering policy (was 200)', async () => {
      for (const name of ['__proto__', 'constructor', 'page_size', 'x']) {
        const answer = await fixture.http().get(`${METERING}?${name}=1`).set('Authorization', fixture.tenant.bearer);
        expectErrorBody(answer, 400, 'VALIDATION_FAILED', 'bad_request');
        expect(answer.body.details).toEqual({ field: name, reason: 'unknown_field' });
      }
      await fixture.http().get(METERING).set('Authorization', fixture.tenant.bearer).expect(200);
    });

    it('are refused on every operation of the API document, before anything else about the request is looked at', async () => {
      const document = (await fixture.http().get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, Operation>> };
      const refused: string[] = [];
      for (const [template, pathItem] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(pathItem)) {
          const path = template.replace(/\{[^}]+\}/g, randomUUID());
          const answer = await fixture
            .http()
            [method as 'get' | 'post' | 'patch'](`${path}?not_a_parameter=1`)
            .set('Authorization', fixture.tenant.bearer)
            .set('Idempotency-Key', fixture.newIdempotencyKey());
          const apiRefusal = answer.body.details?.field === 'not_a_parameter' && answer.body.details.reason === 'unknown_field';
          // SCIM's error body has no details: its detail names the parameter.
          const scimRefusal = template.startsWith('/scim/v2/') && answer.body.scimType === 'invalidValue' && String(answer.body.detail).startsWith('not_a_parameter:');
          if (answer.status === 400 && (apiRefusal || scimRefusal)) refused.push(operation.operationId);
        }
      }
      const every = Object.values(document.paths).flatMap((pathItem) => Object.values(pathItem).map((operation) => operation.operationId));
      expect(every.length).toBeGreaterThanOrEqual(9);
      expect(refused.sort()).toEqual(every.sort());
    });

    it('leave the parameters an operation takes alone', async () => {
      await fixture.http().get(DEPARTMENTS).query({ page_size: 1 }).set('Authorization', fixture.tenant.bearer).expect(200);
      await fixture.http().get(SUITES).query({ status: 'draft', page_size: 2 }).set('Authorization', fixture.tenant.bearer).expect(200);
    });
  });

  describe('If-None-Match', () => {
    const patch = (id: string, ifNoneMatch: string) =>
      fixture.http().patch(`${SUITES}/${id}`).set('Authorization', fixture.tenant.bearer).set('If-None-Match', ifNoneMatch).send({ display_name: 'Changed' });

    it('* on a PATCH of an existing suite is 412 PRECONDITION_FAILED and changes nothing; on a missing one 404', async () => {
      const suite = await fixture.newSuite();
      expectErrorBody(await patch(suite.id, '*'), 412, 'PRECONDITION_FAILED', 'precondition_failed');
      const after = await fixture.http().get(`${SUITES}/${suite.id}`).set('Authorization', fixture.tenant.bearer).expect(200);
      expect(after.body).toMatchObject({ revision: 1, display_name: suite.display_name });
      expectErrorBody(await patch(randomUUID(), '*'), 404, 'NOT_FOUND', 'not_found');
    });

    it('with a list of tags on a PATCH is 400 invalid_format (If-Match names a revision)', async () => {
      const suite = await fixture.newSuite();
      const answer = await patch(suite.id, '"1"');
      expectErrorBody(answer, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(answer.body.details).toEqual({ field: 'If-None-Match', reason: 'invalid_format' });
    });

    it('* on a read without an entity tag answers 200 with the body, never a 304 without ETag', async () => {
      const department = await fixture
        .http()
        .post(DEPARTMENTS)
        .set('Authorization', fixture.tenant.bearer)
        .set('Idempotency-Key', fixture.newIdempotencyKey())
        .send({ name: `D ${randomUUID()}` })
        .expect(201);
      // A department by id has an entity tag (its revision), so * holds there: 304, as for a suite.
      expect(department.body.revision).toBe(1);
      for (const path of [DEPARTMENTS, SUITES, METERING]) {
        for (const method of ['get', 'head'] as const) {
          const answer = await fixture.http()[method](path).set('Authorization', fixture.tenant.bearer).set('If-None-Match', '*');
          expect({ path, method, status: answer.status, etag: answer.headers.etag }).toEqual({ path, method, status: 200, etag: undefined });
          if (method === 'get') expect(typeof answer.body).toBe('object');
        }
      }
    });

    it('* on a suite, which has an entity tag, is a 304 carrying it (RFC 9110)', async () => {
      const suite = await fixture.newSuite();
      const answer = await fixture.http().get(`${SUITES}/${suite.id}`).set('Authorization', fixture.tenant.bearer).set('If-None-Match', '*').expect(304);
      expect(answer.headers.etag).toBe('"1"');
    });
  });

  describe('duplicate member names in a JSON body', () => {
    it('are 400 VALIDATION_FAILED duplicate naming the member, never last-wins, and create nothing', async () => {
      const name = `D ${randomUUID()}`;
      const answer = await fixture
        .http()
        .post(DEPARTMENTS)
        .set('Authorization', fixture.tenant.bearer)
        .set('Idempotency-Key', fixture.newIdempotencyKey())
        .set('Content-Type', 'application/json')
        .send(`{"name":"${name}","name":"${name} 2"}`);
      expectErrorBody(answer, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(answer.body.details).toEqual({ field: 'name', reason: 'duplicate' });
      const page = await fixture.http().get(DEPARTMENTS).query({ page_size: 100 }).set('Authorization', fixture.tenant.bearer).expect(200);
      expect(page.body.items.map((department: { name: string }) => department.name)).not.toContain(`${name} 2`);
    });

    it('are found at any depth, by the name as unescaped', async () => {
      const suite = await fixture.newSuite();
      const body =
        '{"connector_refs":[{"connector_id":"a","connector_origin":"official","required":true},' +
        '{"connector_id":"b","connector_origin":"official","required":true,"\\u0072equired":false}]}';
      const answer = await fixture.http().patch(`${SUITES}/${suite.id}`).set('Authorization', fixture.tenant.bearer).set('Content-Type', 'application/json').send(body);
      expectErrorBody(answer, 400, 'VALIDATION_FAILED', 'bad_request');
      expect(answer.body.details).toEqual({ field: 'connector_refs[1].required', reason: 'duplicate' });
      const after = await fixture.http().get(`${SUITES}/${suite.id}`).set('Authorization', fixture.tenant.bearer).expect(200);
      expect(after.body.revision).toBe(1);
    });
  });
});
