import { invalid } from './http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function refuseUnknownFields(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((field) => !known.includes(field));
  if (unknown !== undefined) throw invalid(unknown, 'unknown_field', `${unknown}: unknown field.`);
}

/** A string that is not blank and at most `max` code points long, trimmed first when `trim`. */
export function text(value: unknown, field: string, max: number, trim: boolean): string {
  if (typeof value !== 'string') throw invalid(field, 'invalid_type', `${field}: must be a string.`);
  const result = trim ? value.trim() : value;
  if (result.trim() === '') throw invalid(field, 'must_not_be_blank', `${field}: must not be blank.`);
  if (!trim && result !== result.trim()) throw invalid(field, 'invalid_format', `${field}: must not start or end with white space.`);
  if ([...result].length > max) throw invalid(field, 'too_long', `${field}: at most ${max} characters.`);
  return result;
}

/** A uuid in any case, returned lower-case. */
export function uuid(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw invalid(field, 'invalid_format', `${field}: must be a uuid.`);
  return value.toLowerCase();
}
