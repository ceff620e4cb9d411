import { readScimPage, SCIM_MAX_PAGE_SIZE, scimListResponse } from './list-paging';
import { ScimError } from './scim-error';

describe('readScimPage', () => {
  it('defaults to the first page of the largest size', () => {
    expect(readScimPage({})).toEqual({ startIndex: 1, count: SCIM_MAX_PAGE_SIZE, offset: 0 });
    expect(SCIM_MAX_PAGE_SIZE).toBe(100);
  });

  it('reads Okta\'s connection test, startIndex=1&count=2', () => {
    expect(readScimPage({ startIndex: '1', count: '2' })).toEqual({ startIndex: 1, count: 2, offset: 0 });
  });

  it('skips startIndex − 1 resources', () => {
    expect(readScimPage({ startIndex: '51', count: '50' })).toEqual({ startIndex: 51, count: 50, offset: 50 });
  });

  it('reads a startIndex below 1 as 1 (RFC 7644 §3.4.2.4)', () => {
    expect(readScimPage({ startIndex: '0' })).toMatchObject({ startIndex: 1, offset: 0 });
    expect(readScimPage({ startIndex: '-5' })).toMatchObject({ startIndex: 1, offset: 0 });
  });

  it('reads a negative count as 0, and keeps count=0 (the total alone)', () => {
    expect(readScimPage({ count: '-1' }).count).toBe(0);
    expect(readScimPage({ count: '0' }).count).toBe(0);
  });

  it('caps count at the largest page, however large it is', () => {
    expect(readScimPage({ count: '101' }).count).toBe(100);
    expect(readScimPage({ count: '99999999999999999999999' }).count).toBe(100);
  });

  it.each([
    ['startIndex', 'abc'],
    ['startIndex', '1.5'],
    ['startIndex', ''],
    ['count', ' 2'],
    ['count', '2e1'],
    ['count', ['1', '2']],
  ])('refuses %s=%j: 400 invalidValue', (name, value) => {
    expect(() => readScimPage({ [name]: value })).toThrow(ScimError);
    expect(() => readScimPage({ [name]: value })).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidValue', detail: `${name} must be an integer, given once.` }));
  });

  it('refuses a startIndex past the safe integers', () => {
    expect(() => readScimPage({ startIndex: '9007199254740993' })).toThrow(expect.objectContaining({ scimType: 'invalidValue', detail: 'startIndex must be at most 9007199254740991.' }));
  });
});

describe('scimListResponse', () => {
  it('writes the RFC 7644 §3.4.2 ListResponse of a page', () => {
    const resources = [{ id: 'a' }, { id: 'b' }];
    expect(scimListResponse(resources, 5, readScimPage({ startIndex: '3', count: '2' }))).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 5,
      startIndex: 3,
      itemsPerPage: 2,
      Resources: resources,
    });
  });

  it('answers count=0 with the total alone', () => {
    expect(scimListResponse([], 42, readScimPage({ count: '0' }))).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 42,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
  });

  it('answers a lookup that matches nothing with an empty list', () => {
    expect(scimListResponse([], 0, readScimPage({}))).toMatchObject({ totalResults: 0, itemsPerPage: 0, Resources: [] });
  });
});
