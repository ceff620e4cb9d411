// Loads every module, and so every error code the modules define.
import '../../app.module';
import { documentedErrorCodes } from '../../../test/support/api-conventions';
import { defineErrorCode, errorCodeCatalog, statusOfCode } from './error-code';

describe('the error code catalog', () => {
  const catalog = errorCodeCatalog();

  it('holds the cross-cutting codes and those the modules define', () => {
    const codes = catalog.map((entry) => entry.code);
    expect(codes).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'SERVICE_UNAVAILABLE', 'IDEMPOTENCY_KEY_REUSED', 'DEPARTMENT_NAME_CONFLICT', 'REVISION_CONFLICT', 'UPLOAD_NOT_USABLE']));
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('is what docs/api-conventions.md lists: every code of the table is defined, with the status of its row', () => {
    const table = documentedErrorCodes();
    expect(table.length).toBeGreaterThanOrEqual(20);
    for (const { code, status } of table) expect({ code, status: catalog.find((entry) => entry.code === code)?.status }).toEqual({ code, status });
    // The other way round (every defined code is documented, in the table or on its operations in the
    // served document) needs the document: test/openapi-errors.e2e-spec.ts.
  });

  it('refuses a code defined twice with another status, a code not in UPPER_SNAKE_CASE, and an undefined code', () => {
    expect(() => defineErrorCode('VALIDATION_FAILED', 409)).toThrow(/defined twice/);
    expect(() => defineErrorCode('not-a-code', 400)).toThrow(/UPPER_SNAKE_CASE/);
    expect(() => statusOfCode('NEVER_DEFINED')).toThrow(/not defined/);
    expect(defineErrorCode('VALIDATION_FAILED', 400)).toBe('VALIDATION_FAILED');
  });
});
