/** The prefix of every API key (`wsk_` and 40 base62 characters). */
export const API_KEY_PREFIX = 'wsk_';
/** The prefix of every webhook signing secret (`whsec_` and base64), as Standard Webhooks writes them. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * Every kind of secret the service hands out, by the prefix that marks it: what follows one never
 * reaches a log line (loggable-path.ts, request-id.middleware.ts). A new kind of secret gets its
 * prefix here.
 */
export const SECRET_PREFIXES: readonly string[] = [API_KEY_PREFIX, WEBHOOK_SECRET_PREFIX];

/** Whether `text` holds a secret's prefix, in any case. */
export function holdsSecret(text: string): boolean {
  const lower = text.toLowerCase();
  return SECRET_PREFIXES.some((prefix) => lower.includes(prefix));
}
