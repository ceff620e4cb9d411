import { badScimRequest, ScimError, scimErrorBody } from './scim-error';

describe('ScimError', () => {
  it('carries its status, scimType and detail, and is an Error whose message is the detail', () => {
    const error = new ScimError(409, 'userName is taken.', 'uniqueness');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ScimError', status: 409, scimType: 'uniqueness', detail: 'userName is taken.', message: 'userName is taken.' });
  });

  it('badScimRequest is a 400 with the given scimType', () => {
    expect(badScimRequest('invalidFilter', 'bad')).toMatchObject({ status: 400, scimType: 'invalidFilter', detail: 'bad' });
  });
});

describe('scimErrorBody', () => {
  it('writes the RFC 7644 §3.12 body with the status as a string', () => {
    expect(scimErrorBody(badScimRequest('invalidFilter', 'The filter does not parse.'))).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidFilter',
      detail: 'The filter does not parse.',
    });
  });

  it('leaves scimType out when the error has none (a 404)', () => {
    const body = scimErrorBody(new ScimError(404, 'Resource 2819c223 not found.'));
    expect(body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404', detail: 'Resource 2819c223 not found.' });
    expect(Object.keys(body)).not.toContain('scimType');
  });
});
