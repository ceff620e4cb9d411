import { APP_REGISTRIES } from '../../app.module';
import { documentedErrorCodes } from '../../../test/support/api-conventions';
import { ErrorCatalog } from './error-catalog';
import { defineErrorCode } from './error-code';

describe('the error code catalog', () => {
  const catalog = APP_REGISTRIES.errors.all;

  it('holds the cross-cutting codes and those the modules define', () => {
    const codes = catalog.map((entry) => entry.code);
    expect(codes).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'SERVICE_UNAVAILABLE', 'IDEMPOTENCY_KEY_REUSED', 'DEPARTMENT_NAME_CONFLICT', 'REVISION_CONFLICT', 'UPLOAD_NOT_USABLE']));
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('is what docs/api-conventions.md lists: every code of the table is defined, with the status of its row', () => {
    const table = documentedErrorCodes();
    expect(table.length).toBeGreaterThanOrEqual(20);
    for (const { code, status } of table) expect({ code, status: APP_REGISTRIES.errors.find(code)?.status }).toEqual({ code, status });
    // The other way round (every defined code is documented, in the table or on its operations in the
    // served document) needs the document: test/openapi-errors.e2e-spec.ts.
  });

  it('refuses a code not in UPPER_SNAKE_CASE; sorts by status then code, frozen', () => {
    expect(() => defineErrorCode('not-a-code', 400)).toThrow(/UPPER_SNAKE_CASE/);
    expect(defineErrorCode('PROBE_CONFLICT', 409)).toEqual({ code: 'PROBE_CONFLICT', status: 409 });
    const probe = new ErrorCatalog([defineErrorCode('B_CONFLICT', 409), defineErrorCode('A_CONFLICT', 409), defineErrorCode('Z_INVALID', 400)]);
    expect(probe.all.map(({ code }) => code)).toEqual(['Z_INVALID', 'A_CONFLICT', 'B_CONFLICT']);
    expect(probe.find('NEVER_DEFINED')).toBeUndefined();
    expect(Object.isFrozen(probe) && Object.isFrozen(probe.all) && Object.isFrozen(probe.all[0])).toBe(true);
  });
});
