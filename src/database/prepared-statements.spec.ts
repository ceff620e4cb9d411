import type { SqlQuery } from '@prisma/driver-adapter-utils';
import { preparedStatementNames } from './prepared-statements';

const statement = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

describe('preparedStatementNames', () => {
  it('gives one text the same name every time and another text another name', () => {
    const nameOf = preparedStatementNames(10)!;
    expect(nameOf(statement('SELECT 1'))).toBe('wsa_1');
    expect(nameOf(statement('SELECT 2'))).toBe('wsa_2');
    expect(nameOf(statement('SELECT 1'))).toBe('wsa_1');
  });

  it('knows a text built anew, and tells apart texts of one length', () => {
    const nameOf = preparedStatementNames(10)!;
    const built = (n: number) => ['SELECT ', String(n), ' AS ', 'x'].join('');
    expect(nameOf(statement(built(1)))).toBe('wsa_1');
    expect(nameOf(statement(built(2)))).toBe('wsa_2');
    expect(nameOf(statement('SELECT 10 AS y'))).toBe('wsa_3');
    expect([nameOf(statement(built(2))), nameOf(statement(built(1)))]).toEqual(['wsa_2', 'wsa_1']);
  });

  it('leaves texts beyond the limit unnamed, and keeps the names it gave', () => {
    const nameOf = preparedStatementNames(2)!;
    nameOf(statement('SELECT 1'));
    nameOf(statement('SELECT 2'));
    expect(nameOf(statement('SELECT 3'))).toBeUndefined();
    expect(nameOf(statement('SELECT 2'))).toBe('wsa_2');
  });

  it('names nothing when the limit is 0', () => {
    expect(preparedStatementNames(0)).toBeUndefined();
  });
});
