import type { ForeignKeyConstraint, UniqueConstraint } from '../generated/constraints';
import { isForeignKeyViolation, isUniqueViolation, violatedConstraint } from './prisma-errors';

/** A constraint of the schema, by the name its migration gave it (src/generated/constraints.ts, from prisma/migrations). */
export type ConstraintName = UniqueConstraint | ForeignKeyConstraint;

/** The error a caller answers for each constraint it expects a write to break. */
export type ViolationErrors = { readonly [name in ConstraintName]?: () => Error };

/**
 * Turns the violation of a named unique or foreign-key constraint into the caller's error, and
 * hands every other error back as it is: `catch (error) { throw conflicts(error); }` with
 * `const conflicts = violations({ departments_sibling_name_key: () => new AppError(…) })` made once
 * per service. The names are checked against the schema's at compile time, so a typo or a
 * constraint a migration renamed or dropped is a type error, not a 500 in production. The database
 * enforces the rule; this only names its answer.
 */
export function violations(errors: ViolationErrors): (error: unknown) => unknown {
  return (error) => {
    if (!isUniqueViolation(error) && !isForeignKeyViolation(error)) return error;
    const name = violatedConstraint(error);
    return name !== undefined && Object.hasOwn(errors, name) ? errors[name as ConstraintName]!() : error;
  };
}

/**
 * The one row a write returned, or the caller's error when it returned none: the
 * `INSERT … SELECT … FROM <the parent, scoped by organization>` idiom, where a missing (or another
 * organization's) parent makes the statement insert nothing instead of breaking a foreign key.
 */
export function insertedRow<Row>(rows: readonly Row[], whenNone: () => Error): Row {
  if (rows.length === 0) throw whenNone();
  return rows[0];
}
