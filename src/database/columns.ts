import { Prisma } from '../generated/prisma/client';

/**
 * A select list of a model's columns, with the row type it reads: `columns<Department>()('id',
 * 'externalId')` is `"id", "external_id" AS "externalId"` and reads `Pick<Department, 'id' |
 * 'externalId'>`. The field names are the generated model's, checked by the compiler, so a field
 * renamed in the schema breaks the build; each column is the field's snake_case name, the schema's
 * convention for `@map` (columns.spec.ts holds every model to it).
 */
export interface Columns<Row> {
  readonly sql: Prisma.Sql;
  /** Only for `typeof`: the type of the rows this list reads. */
  readonly row?: Row;
}

export type RowOf<C extends Columns<unknown>> = NonNullable<C['row']>;

/** `table`: the alias of the table in the statement's FROM, for a list read from a join. */
export function columns<Model>(table?: string) {
  return <const Field extends keyof Model & string>(...fields: Field[]): Columns<Pick<Model, Field>> => ({
    sql: Prisma.raw(fields.map((field) => `${table === undefined ? '' : `${table}.`}"${columnName(field)}"${columnName(field) === field ? '' : ` AS "${field}"`}`).join(', ')),
  });
}

/** The column of a model field: its snake_case name. */
export function columnName(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
