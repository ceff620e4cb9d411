import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../../common/secret-prefixes';

const SECRET_BYTES = 32;

/** A new signing secret as Standard Webhooks writes one: `whsec_` and the base64 of random bytes. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` for each secret
 * (the key is the secret's base64-decoded bytes), separated by spaces, so that a receiver holding
 * either secret of a rotation verifies it.
 */
export function webhookSignature(secrets: readonly string[], webhookId: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
