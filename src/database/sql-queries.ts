import { ColumnTypeEnum, type ArgType, type SqlQuery, type SqlQueryable, type SqlResultSet } from '@prisma/driver-adapter-utils';
import type { Prisma } from '../generated/prisma/client';

/** Raw SQL statements (`Prisma.sql` templates), answered as `$queryRaw` / `$executeRaw` answer them. */
export interface SqlQueries {
  query<T>(statement: Prisma.Sql): Promise<T[]>;
  /** The number of rows the statement wrote. */
  execute(statement: Prisma.Sql): Promise<number>;
  /**
   * `query`, for the last statement of a transaction whose work is running: the statement, those
   * kept by `executeAtCommit` and the COMMIT are sent together, and its rows are answered once the
   * transaction has committed; no statement may follow it there. Outside a transaction, and in one
   * joined from further up (TransactionHost), it is `query`. Only for a statement that writes
   * nothing when its answer refuses the change, since that answer comes after the commit.
   */
  queryAndCommit<T>(statement: Prisma.Sql): Promise<T[]>;
}

/** The statements of one transaction: `SqlQueries`, and statements sent with its COMMIT. */
export interface TransactionQueries extends SqlQueries {
  /**
   * Keeps `statement` to be sent as the transaction's last, with its COMMIT and without waiting in
   * between (SqlDriver.transaction): the transaction commits only if the statement succeeds. For a
   * write whose answer nothing waits for.
   */
  executeAtCommit(statement: Prisma.Sql): void;
}


/**
 * Statements straight to Prisma's driver adapter (or one of its transactions), without the client
 * runtime's request pipeline, which costs CPU on every statement (docs/adr/0002-hot-statements-on-the-sql-driver-adapter.md). Parameters
 * and results are converted as the client converts them for `$queryRaw`.
 */
export function adapterQueries(queryable: SqlQueryable): SqlQueries {
  const query = async <T>(statement: Prisma.Sql) => rowsOf<T>(await queryable.queryRaw(toSqlQuery(statement)));
  return { query, execute: (statement: Prisma.Sql) => queryable.executeRaw(toSqlQuery(statement)), queryAndCommit: query };
}

export function toSqlQuery(statement: Prisma.Sql): SqlQuery {
  const args: unknown[] = [];
  const argTypes: ArgType[] = [];
  for (const value of statement.values) {
    const [arg, argType] = toArg(value);
    args.push(arg);
    argTypes.push(argType);
  }
  return { sql: statement.text, args, argTypes };
}

const SCALAR = 'scalar' as const;

/** A parameter as the client hands it to the adapter; the adapter formats dates and bytes. */
function toArg(value: unknown): [unknown, ArgType] {
  if (value === null || value === undefined) return [null, { scalarType: 'unknown', arity: SCALAR }];
  switch (typeof value) {
    case 'string':
      return [value, { scalarType: 'string', arity: SCALAR }];
    case 'number':
      return [value, { scalarType: 'decimal', arity: SCALAR }];
    case 'bigint':
      return [value.toString(), { scalarType: 'bigint', arity: SCALAR }];
    case 'boolean':
      return [value, { scalarType: 'unknown', arity: SCALAR }];
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('An invalid Date cannot be a query parameter');
    return [value, { scalarType: 'datetime', arity: SCALAR }];
  }
  if (ArrayBuffer.isView(value)) return [value, { scalarType: 'bytes', arity: SCALAR }];
  // A list parameter (`= ANY(${ids}::uuid[])`): the driver sends it as a PostgreSQL array.
  if (Array.isArray(value)) {
    const elements = value.map((element) => toArg(element));
    return [elements.map(([arg]) => arg), { scalarType: elements[0]?.[1].scalarType ?? 'unknown', arity: 'list' }];
  }
  return [JSON.stringify(value), { scalarType: 'unknown', arity: SCALAR }];
}

type ColumnReader = (value: unknown) => unknown;

const asIs: ColumnReader = (value) => value;

/** How the client turns each column type the adapters give into a value (`$queryRaw`'s answers). */
const READERS: Partial<Record<number, ColumnReader>> = {
  [ColumnTypeEnum.Int32]: asIs,
  [ColumnTypeEnum.Float]: asIs,
  [ColumnTypeEnum.Double]: asIs,
  [ColumnTypeEnum.Boolean]: asIs,
  [ColumnTypeEnum.Character]: asIs,
  [ColumnTypeEnum.Text]: asIs,
  [ColumnTypeEnum.Enum]: asIs,
  [ColumnTypeEnum.Uuid]: asIs,
  [ColumnTypeEnum.Bytes]: asIs,
  [ColumnTypeEnum.TextArray]: asIs,
  [ColumnTypeEnum.Int64]: (value) => BigInt(value as string | number),
  [ColumnTypeEnum.DateTime]: (value) => new Date(value as string),
  [ColumnTypeEnum.Date]: (value) => new Date(value as string),
  [ColumnTypeEnum.Json]: (value) => (typeof value === 'string' ? JSON.parse(value) : value),
};

export function rowsOf<T>({ columnNames, columnTypes, rows }: SqlResultSet): T[] {
  const readers = columnTypes.map((type, index) => {
    const reader = READERS[type];
    if (!reader) throw new TypeError(`Column "${columnNames[index]}" has a type (${type}) that raw statements here do not read; cast it in the SQL`);
    return reader;
  });
  return rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (let column = 0; column < columnNames.length; column++) {
      const value = row[column];
      record[columnNames[column]] = value === null ? null : readers[column](value);
    }
    return record as T;
  });
}
