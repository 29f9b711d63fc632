/**
 * The webhook's signing secrets (habit 19: one secret, one purpose). They only tell Stripe's events
 * from forgeries, so they are a secret of their own, apart from the API key that moves money.
 * Deployed, a Secrets Manager secret read at run time through the extension and kept at most 5
 * minutes; its value is one `whsec_…`, a JSON list of them, or `{"current": "whsec_…", "previous":
 * "whsec_…"}`: during a rotation both are accepted until the old one is dropped from the secret
 * (docs/deployment.md). A value holding no `whsec_…` (the stack's placeholder) means no webhook.
 */
import { stripeWebhookSecretSource } from '../config.ts';

const REREAD_MS = 5 * 60_000;
const SIGNING_SECRET = /^whsec_\S+$/;

let held: { secrets: string[]; readAt: number } | undefined;

/** The signing secrets a value holds, in any of the three forms (others ignored). */
export function signingSecretsOf(value: string): string[] {
  const text = value.trim();
  let candidates: unknown[] = text.split(',');
  if (text.startsWith('[') || text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      candidates = Array.isArray(parsed) ? parsed : parsed !== null && typeof parsed === 'object' ? Object.values(parsed) : [];
    } catch {
      candidates = [];
    }
  }
  return candidates
    .filter((candidate): candidate is string => typeof candidate === 'string')
    .map((candidate) => candidate.trim())
    .filter((candidate) => SIGNING_SECRET.test(candidate));
}

/** The secrets that may sign an event, or undefined when this deployment takes no webhook. */
export async function webhookSigningSecrets(): Promise<string[] | undefined> {
  const source = stripeWebhookSecretSource();
  if (source === undefined) return undefined;
  if ('value' in source) {
    const secrets = signingSecretsOf(source.value);
    return secrets.length > 0 ? secrets : undefined;
  }
  if (!held || Date.now() - held.readAt >= REREAD_MS) {
    const { secretString } = await import('../secrets-extension.ts');
    held = { secrets: signingSecretsOf((await secretString(source.secretArn)) ?? ''), readAt: Date.now() };
  }
  return held.secrets.length > 0 ? held.secrets : undefined;
}
