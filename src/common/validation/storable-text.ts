/**
 * NUL and unpaired UTF-16 surrogates: text that is not Unicode text (a lone surrogate) or that
 * PostgreSQL cannot hold in text or jsonb (NUL). Refused, never rewritten.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}
