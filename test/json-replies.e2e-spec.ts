import { useTestApp } from './support/test-app';

// Handlers' JSON bodies are written by JsonReplyExpressAdapter rather than Express's res.json;
// the answer must not change, whichever of the two writes it.
describe('JSON answers', () => {
  const fixture = useTestApp();
  const metering = () => fixture.http().get('/api/openapi/v1/metering-policy').set('Authorization', fixture.tenant.bearer);

  it("carry Express's Content-Type and the exact Content-Length of their body", async () => {
    const response = await metering().expect(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
    expect(JSON.parse(response.text)).toEqual(response.body);
  });

  it('are the same when Express writes them (a conditional request), and HEAD gets the headers only', async () => {
    const direct = await metering().expect(200);
    const conditional = await metering().set('If-None-Match', '"not-this"').expect(200);
    expect(conditional.headers['content-type']).toBe(direct.headers['content-type']);
    expect(conditional.headers['content-length']).toBe(direct.headers['content-length']);
    expect(conditional.body).toEqual(direct.body);
    const head = await fixture.http().head('/api/openapi/v1/metering-policy').set('Authorization', fixture.tenant.bearer).expect(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.text).toBeUndefined();
  });

  it("keep the status a handler sets (201 for a created department)", async () => {
    const response = await fixture.http().post('/api/openapi/v1/departments').set('Authorization', fixture.tenant.bearer).set('Idempotency-Key', fixture.newIdempotencyKey()).send({ name: 'Replied' }).expect(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
  });
});
