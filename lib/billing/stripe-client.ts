/**
 * The `stripe` SDK, configured: Stripe's secret API key (lib/config.ts `stripeSecretKeySource`)
 * and, locally, the payments server's address (`STRIPE_API_BASE`). Only what calls Stripe imports
 * this module, so that no read route bundles the SDK (docs/performance.md).
 *
 * The key moves money (checkouts, refunds), so deployed it is a Secrets Manager secret read at run
 * time through the extension, never a value in a function's configuration, and kept here at most
 * 5 minutes: a rolled key reaches every instance within that. The stack creates the secret with a
 * random placeholder; until an operator puts a key (`sk_…` or a restricted `rk_…`) in it, buying
 * credits answers 403 `operation_not_enabled` (docs/funding.md, "Deployed").
 */
import Stripe from 'stripe';
import { stripeApiBase, stripeSecretKeySource } from '../config.ts';

/** How long an instance keeps the key before reading it again. */
export const STRIPE_KEY_REREAD_MS = 5 * 60_000;
/** One Stripe call, its one retry included, must leave a route's 25 s room to answer. */
const STRIPE_TIMEOUT_MS = 8_000;
const API_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]+$/;

let held: { key: string; client: Stripe; readAt: number } | undefined;

function clientFor(key: string): Stripe {
  if (held?.key === key) return held.client;
  const base = stripeApiBase();
  const client = new Stripe(key, {
    maxNetworkRetries: 1,
    timeout: STRIPE_TIMEOUT_MS,
    // Request-latency telemetry rides on later requests' headers: nothing this service needs.
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  held = { key, client, readAt: Date.now() };
  return client;
}

/** The SDK with the current key, or undefined when this deployment has none (no payments). */
export async function stripeClient(): Promise<Stripe | undefined> {
  const source = stripeSecretKeySource();
  if (source === undefined) return undefined;
  if ('value' in source) return API_KEY.test(source.value) ? clientFor(source.value) : undefined;
  if (held && Date.now() - held.readAt < STRIPE_KEY_REREAD_MS) return held.client;
  const { secretString } = await import('../secrets-extension.ts');
  const key = ((await secretString(source.secretArn)) ?? '').trim();
  if (!API_KEY.test(key)) return undefined;
  const client = clientFor(key);
  held = { key, client, readAt: Date.now() };
  return client;
}
