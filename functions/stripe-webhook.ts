import * as z from 'zod/mini';
import { receiveStripeWebhook } from '../lib/billing/stripe-webhook.ts';
import { baseChain } from '../lib/http/base-chain.ts';

/**
 * POST /payments/stripe/webhook — Stripe's events about this service's payments: no token, no rate
 * limit. On the chain that parses no body: the signature covers the raw bytes, so nothing may
 * parse or re-encode them first.
 */
export const handler = baseChain().handler(async (event) => {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  await receiveStripeWebhook(body, event.headers['stripe-signature'], new Date(Date.now()));
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ received: true }) };
});

export const responseSchema = z.object({ received: z.literal(true) });
