import { Prisma } from '../generated/prisma/client';
import { inlineStatement } from './inline-statement';

describe('inlineStatement', () => {
  it('writes each value in as a literal in the place of its parameter', () => {
    const statement = Prisma.sql`UPDATE t SET a = ${201}, b = ${'x'} WHERE c = ${5n} AND d = ${true} AND e IS NOT DISTINCT FROM ${null}`;
    expect(inlineStatement(statement)).toBe(`UPDATE t SET a = (201), b = 'x' WHERE c = (5) AND d = TRUE AND e IS NOT DISTINCT FROM NULL`);
  });

  it('quotes strings so that quotes, backslashes and statement separators stay inside the literal', () => {
    const hostile = `it's \\'; DROP TABLE t; --`;
    expect(inlineStatement(Prisma.sql`SELECT ${hostile}::text`)).toBe(`SELECT  E'it''s \\\\''; DROP TABLE t; --'::text`);
  });

  it('keeps a negative number one operand', () => {
    expect(inlineStatement(Prisma.sql`SELECT 1 - ${-2}`)).toBe('SELECT 1 - (-2)');
  });

  it('writes a date as its ISO 8601 UTC text', () => {
    expect(inlineStatement(Prisma.sql`SELECT ${new Date('2026-11-27T01:02:03.456Z')}::timestamptz`)).toBe(`SELECT '2026-11-27T01:02:03.456Z'::timestamptz`);
  });

  it('refuses values it cannot write as a literal read back the same', () => {
    expect(() => inlineStatement(Prisma.sql`SELECT ${Number.NaN}`)).toThrow(TypeError);
    expect(() => inlineStatement(Prisma.sql`SELECT ${new Date(Number.NaN)}`)).toThrow(TypeError);
    expect(() => inlineStatement(Prisma.sql`SELECT ${Buffer.from('x')}`)).toThrow(/Uint8Array|Buffer/);
    expect(() => inlineStatement(Prisma.sql`SELECT ${['a']}`)).toThrow(/Array/);
  });
});
