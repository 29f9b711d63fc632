/**
 * The payments side of the tests: the local payments server with its webhooks delivered to the real
 * webhook handler (through the route table and the whole middy chain), a checkout paid on its page,
 * and an event delivered by hand (as Stripe sends it, or tampered with).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { handler as getPurchase } from '../../functions/get-credit-purchase.ts';
import { handler as getCredits } from '../../functions/get-credits.ts';
import { handler as webhook } from '../../functions/stripe-webhook.ts';
import type { StripeEvent } from '../../lib/local/payments-ledger.ts';
import { type PaymentsServer, startPaymentsServer, stripeSignature } from '../../lib/local/payments-server.ts';
import { type Answer, call } from './http.ts';
import { tokenFor } from './tokens.ts';

export const WEBHOOK_PATH = '/payments/stripe/webhook';

/** POSTs `body` to the webhook handler with these headers (a signature, or none). */
export const deliver = (body: string, headers: Record<string, string> = {}): Promise<Answer> =>
  call(webhook, { method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json', ...headers }, body });

/** An event as Stripe sends it: its pretty-printed JSON, signed now (or at `timestamp`) with `secret`. */
export function signed(event: unknown, secret: string, timestamp?: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event, null, 2);
  return { body, headers: { 'stripe-signature': stripeSignature(secret, body, timestamp) } };
}

/** The real `stripe` SDK, pointed at the local payments server (with its key, or `secretKey`). */
export const stripeOf = (payments: PaymentsServer, secretKey = payments.secretKey): Stripe =>
  new Stripe(secretKey, { host: payments.host, port: payments.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });

/** The organization's balance, as its owner reads it through the credits route. */
export const balanceOf = async (orgId: string, owner: string): Promise<number> =>
  (await call(getCredits, { url: `/organizations/${orgId}/credits`, token: tokenFor(owner) })).body.balance;

/** A purchase, as its owner reads it through its route. */
export const purchaseOf = async (orgId: string, owner: string, id: string) =>
  (await call(getPurchase, { url: `/organizations/${orgId}/credit-purchases/${id}`, token: tokenFor(owner) })).body;

export interface PaymentsHarness {
  payments: PaymentsServer;
  /** Stops the payments server and the receiver, and restores the environment. */
  close(): Promise<void>;
}

/** The payments server, its webhooks sent to the real handler, and the service pointed at it. */
export async function startPayments(retryDelaysMs: readonly number[] = [200, 500]): Promise<PaymentsHarness> {
  const receiver: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    const answer = await deliver(Buffer.concat(chunks).toString('utf8'), headers).catch(() => ({ status: 500, raw: '' }));
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.raw);
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  const payments = await startPaymentsServer({ retryDelaysMs, webhookUrl: `http://127.0.0.1:${port}${WEBHOOK_PATH}` });
  process.env.STRIPE_SECRET_KEY = payments.secretKey;
  process.env.STRIPE_API_BASE = payments.url;
  process.env.STRIPE_WEBHOOK_SECRET = payments.webhookSecret;
  return {
    payments,
    async close() {
      delete process.env.STRIPE_SECRET_KEY;
      delete process.env.STRIPE_API_BASE;
      delete process.env.STRIPE_WEBHOOK_SECRET;
      await payments.close();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}

/** Pays a checkout on its page: 303 when paid, 402 when declined. `hold`: its events are listed, never sent. */
export async function pay(checkoutUrl: string, card = '4242424242424242', webhooks: 'send' | 'hold' = 'send'): Promise<number> {
  const response = await fetch(checkoutUrl, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ card_number: card, exp_month: '12', exp_year: '2099', cvc: '123', webhooks }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Every event the payments server raised about a PaymentIntent or Checkout Session (any of `ids`). */
export function eventsAbout(payments: PaymentsServer, ids: readonly string[]): StripeEvent[] {
  const wanted = new Set(ids);
  return payments.ledger.events.filter((event) => {
    const object = event.data.object as unknown as Record<string, unknown>;
    return [object.id, object.payment_intent].some((id) => typeof id === 'string' && wanted.has(id));
  });
}

/** Polls `read` until `done` holds of its value or `timeoutMs` passes; the last value. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
