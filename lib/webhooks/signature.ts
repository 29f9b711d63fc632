/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, keyed by a secret `whsec_<base64 of 24 random bytes>` (the key is the
 * base64-decoded part).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The `webhook-signature` header's value for one message. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
