import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// Loads every module, and so every error code the modules define.
import '../../app.module';
import { defineErrorCode, errorCodeCatalog, statusOfCode } from './error-code';

describe('the error code catalog', () => {
  const catalog = errorCodeCatalog();

  it('holds the cross-cutting codes and those the modules define', () => {
    const codes = catalog.map((entry) => entry.code);
    expect(codes).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'SERVICE_UNAVAILABLE', 'IDEMPOTENCY_KEY_REUSED', 'DEPARTMENT_NAME_CONFLICT', 'REVISION_CONFLICT', 'UPLOAD_NOT_USABLE']));
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('is what docs/api-conventions.md lists: every code in the row of its status, and no other code', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/api-conventions.md'), 'utf8');
    const rows = new Map<number, string>();
    for (const match of doc.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)) rows.set(Number(match[1]), match[2]);
    for (const { code, status } of catalog) expect({ code, row: rows.get(status)?.includes(`\`${code}\``) }).toEqual({ code, row: true });
    // The codes of a row come before its first remark in parentheses.
    const documented = [...rows.values()].flatMap((row) => [...row.split(' (')[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]));
    expect(documented.length).toBe(catalog.length);
    expect(documented.filter((code) => !catalog.some((entry) => entry.code === code))).toEqual([]);
  });

  it('refuses a code defined twice with another status, a code not in UPPER_SNAKE_CASE, and an undefined code', () => {
    expect(() => defineErrorCode('VALIDATION_FAILED', 409)).toThrow(/defined twice/);
    expect(() => defineErrorCode('not-a-code', 400)).toThrow(/UPPER_SNAKE_CASE/);
    expect(() => statusOfCode('NEVER_DEFINED')).toThrow(/not defined/);
    expect(defineErrorCode('VALIDATION_FAILED', 400)).toBe('VALIDATION_FAILED');
  });
});
