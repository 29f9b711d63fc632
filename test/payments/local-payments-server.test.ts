/**
 * The local payments server (lib/local/payments-server.ts) through the real `stripe` SDK: if the
 * SDK works against it unchanged, the service's own calls do too. The checkout page as a browser
 * posts it; webhooks as a receiver gets them, checked with the SDK's own signature verifier.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentsServer, startPaymentsServer } from '../../lib/local/payments-server.ts';
import { stripeOf } from '../support/payments.ts';

interface Received {
  event: Stripe.Event;
  signature: string;
}

let payments: PaymentsServer;
let stripe: Stripe;
const received: Received[] = [];
/** Statuses the receiver answers, in turn, before it answers 200. */
let failures: number[] = [];
let receiver: ReturnType<typeof createServer>;

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const status = failures.shift() ?? 200;
      const signature = String(request.headers['stripe-signature']);
      // The SDK's verifier: a signature it accepts is one Stripe's receivers accept.
      if (status === 200) received.push({ event: stripe.webhooks.constructEvent(body, signature, payments.webhookSecret), signature });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  payments = await startPaymentsServer({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    retryDelaysMs: [50, 100, 150],
  });
  stripe = stripeOf(payments);
});

afterAll(async () => {
  await payments.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

afterEach(() => {
  payments.setDown(false);
  failures = [];
});

const unit = 1;
async function newSession(credits = 500, metadata: Record<string, string> = { purchase_id: 'pur_1', organization_id: 'org_1' }) {
  const customer = await stripe.customers.create({ metadata: { organization_id: 'org_1' } });
  return stripe.checkout.sessions.create({
    mode: 'payment',
    customer: customer.id,
    client_reference_id: metadata.purchase_id,
    line_items: [{ quantity: credits, price_data: { currency: 'usd', unit_amount: unit, product_data: { name: 'Credits' } } }],
    metadata,
    payment_intent_data: { metadata },
    success_url: 'https://console.example/console?organization_id=org_1#billing',
    cancel_url: 'https://console.example/console?organization_id=org_1#billing',
  });
}

const card = (number: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({ card_number: number, exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123', ...extra });

const post = (url: string, form: URLSearchParams) =>
  fetch(url, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });

async function eventsFor(paymentIntent: string, types: string[], timeoutMs = 5_000): Promise<Stripe.Event[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = received
      .map((r) => r.event)
      .filter((e) => {
        const object = e.data.object as { id?: string; payment_intent?: string };
        return object.id === paymentIntent || object.payment_intent === paymentIntent;
      });
    if (types.every((type) => found.some((e) => e.type === type)) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the API, through the stripe SDK', () => {
  it('makes a Checkout Session in Stripe’s shape, with its prefixes, and retrieves it', async () => {
    const session = await newSession(700);
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: 700,
      currency: 'usd',
      client_reference_id: 'pur_1',
      metadata: { purchase_id: 'pur_1', organization_id: 'org_1' },
      payment_intent: null,
      url: `${payments.url}/c/pay/${session.id}`,
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.customer).toMatch(/^cus_/);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toEqual(session);
  });

  it('answers the same response to the same Idempotency-Key, and refuses the key with other parameters', async () => {
    const first = await stripe.customers.create({ name: 'a' }, { idempotencyKey: 'purchase:pur_x' });
    const again = await stripe.customers.create({ name: 'a' }, { idempotencyKey: 'purchase:pur_x' });
    expect(again).toEqual(first);
    expect(payments.ledger.customers.has(first.id)).toBe(true);
    await expect(stripe.customers.create({ name: 'b' }, { idempotencyKey: 'purchase:pur_x' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      statusCode: 400,
    });
  });

  it('refuses another secret key with 401, and answers api_error 500 while down', async () => {
    const stranger = new Stripe('sk_test_not_this_one', {
      host: payments.host,
      port: payments.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    await expect(stranger.customers.create({})).rejects.toMatchObject({ type: 'StripeAuthenticationError', statusCode: 401 });
    payments.setDown(true);
    await expect(stripe.customers.create({})).rejects.toMatchObject({ type: 'StripeAPIError', statusCode: 500 });
  });

  it('answers Stripe’s error shape for what it refuses', async () => {
    await expect(stripe.checkout.sessions.retrieve('cs_test_missing')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      raw: { message: "No such checkout.session: 'cs_test_missing'" },
    });
    await expect(
      stripe.checkout.sessions.create({ mode: 'payment', success_url: 'https://x.example', line_items: [] }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'line_items' });
    const raw = await fetch(`${payments.url}/v1/payment_intents/pi_nope`, { headers: { authorization: `Bearer ${payments.secretKey}` } });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({
      error: { type: 'invalid_request_error', code: 'resource_missing', message: "No such payment_intent: 'pi_nope'", param: 'intent' },
    });
  });

  it('expires an open session (with its event), and refuses to expire it twice', async () => {
    const session = await newSession();
    expect(await stripe.checkout.sessions.expire(session.id)).toMatchObject({ status: 'expired', url: null });
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toMatchObject({ statusCode: 400 });
    const page = await fetch(`${payments.url}/c/pay/${session.id}`);
    expect(page.status).toBe(410);
    const { data } = await stripe.events.list({ type: 'checkout.session.expired', limit: 100 });
    expect(data.map((e) => (e.data.object as Stripe.Checkout.Session).id)).toContain(session.id);
  });
});

describe('the checkout page', () => {
  it('serves one form posting to the checkout URL, with nothing from elsewhere', async () => {
    const session = await newSession();
    const page = await fetch(defined(session.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain(`<form method="post" action="${session.url}">`);
    expect(html).not.toMatch(/<script|<link|src=/);
  });

  it('4242: pays, 303 to success_url, and sends the events signed; the PaymentIntent succeeded with the metadata', async () => {
    const session = await newSession(900);
    const paid = await post(defined(session.url), card('4242 4242 4242 4242'));
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(session.success_url);
    const completed = await stripe.checkout.sessions.retrieve(session.id);
    expect(completed).toMatchObject({ status: 'complete', payment_status: 'paid', url: null });
    const intent = await stripe.paymentIntents.retrieve(defined(completed.payment_intent as string | null));
    expect(intent).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 900,
      amount_received: 900,
      currency: 'usd',
      metadata: { purchase_id: 'pur_1', organization_id: 'org_1' },
    });
    expect(intent.id).toMatch(/^pi_/);
    expect(intent.latest_charge).toMatch(/^ch_/);
    const events = await eventsFor(intent.id, ['payment_intent.succeeded', 'charge.succeeded', 'checkout.session.completed']);
    expect(events.map((e) => e.type).sort()).toEqual(['charge.succeeded', 'checkout.session.completed', 'payment_intent.succeeded']);
    const sessionEvents = received.filter(
      (r) => r.event.type === 'checkout.session.completed' && (r.event.data.object as { id: string }).id === session.id,
    );
    expect(sessionEvents).toHaveLength(1);
    expect(sessionEvents[0]?.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(events[0]?.id).toMatch(/^evt_/);
    expect(await post(defined(session.url), card('4242424242424242')).then((r) => r.status)).toBe(410);
  });

  it('0002: 402 naming the reason, the session still open, payment_intent.payment_failed sent; then a good card pays', async () => {
    const session = await newSession();
    const declined = await post(defined(session.url), card('4000 0000 0000 0002'));
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain('generic_decline');
    const open = await stripe.checkout.sessions.retrieve(session.id);
    expect(open.status).toBe('open');
    const intent = await stripe.paymentIntents.retrieve(defined(open.payment_intent as string | null));
    expect(intent.status).toBe('requires_payment_method');
    expect(intent.last_payment_error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' });
    expect((await eventsFor(intent.id, ['payment_intent.payment_failed'])).map((e) => e.type)).toContain('payment_intent.payment_failed');
    expect((await post(defined(session.url), card('4242424242424242'))).status).toBe(303);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe('succeeded');
  });

  it('3184: asks for authentication; "complete" pays, "fail" declines', async () => {
    for (const [outcome, status, final] of [
      ['complete', 303, 'succeeded'],
      ['fail', 402, 'requires_payment_method'],
    ] as const) {
      const session = await newSession();
      const asked = await post(defined(session.url), card('4000002760003184'));
      expect(asked.status).toBe(200);
      expect(await asked.text()).toContain(`action="${session.url}/authenticate"`);
      const answered = await post(`${session.url}/authenticate`, new URLSearchParams({ outcome }));
      expect(answered.status).toBe(status);
      const retrieved = await stripe.checkout.sessions.retrieve(session.id);
      expect((await stripe.paymentIntents.retrieve(defined(retrieved.payment_intent as string | null))).status).toBe(final);
    }
  });

  it('0259: pays, then charge.dispute.created for the whole amount within 5 s', async () => {
    const session = await newSession(1_200);
    expect((await post(defined(session.url), card('4000000000000259'))).status).toBe(303);
    const intent = defined((await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string | null);
    const events = await eventsFor(intent, ['charge.dispute.created']);
    const dispute = defined(events.find((e) => e.type === 'charge.dispute.created')).data.object as Stripe.Dispute;
    expect(dispute).toMatchObject({ object: 'dispute', amount: 1_200, currency: 'usd', payment_intent: intent });
    expect(dispute.id).toMatch(/^dp_/);
  });

  it('webhooks=hold: the events are listed, never sent', async () => {
    const session = await newSession();
    expect((await post(defined(session.url), card('4242424242424242', { webhooks: 'hold' }))).status).toBe(303);
    const intent = defined((await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string | null);
    await payments.deliveriesSettled();
    expect(await eventsFor(intent, [], 0)).toEqual([]);
    const { data } = await stripe.events.list({ types: ['payment_intent.succeeded', 'checkout.session.completed'], limit: 100 });
    expect(data.filter((e) => [intent, session.id].includes((e.data.object as { id: string }).id)).map((e) => e.type)).toEqual([
      'checkout.session.completed',
      'payment_intent.succeeded',
    ]);
  });

  it.each([
    ['card_number', { card_number: '4242' }],
    ['exp_month', { exp_month: '13' }],
    ['exp_year', { exp_year: String(new Date().getUTCFullYear() - 1) }],
    ['cvc', { cvc: '12' }],
    ['webhooks', { webhooks: 'later' }],
  ])('400 for a malformed %s, nothing paid', async (field, bad) => {
    const session = await newSession();
    const answer = await post(defined(session.url), card('4242424242424242', bad));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain(`&quot;${field}&quot; is malformed`);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });
});

describe('refunds and the event list', () => {
  it('refunds in parts up to the amount, each a charge.refunded with the cumulative amount_refunded', async () => {
    const session = await newSession(1_000);
    await post(defined(session.url), card('4242424242424242'));
    const intent = defined((await stripe.checkout.sessions.retrieve(session.id)).payment_intent as string | null);
    const part = await stripe.refunds.create({ payment_intent: intent, amount: 300 });
    expect(part).toMatchObject({ object: 'refund', amount: 300, payment_intent: intent, status: 'succeeded' });
    expect(part.id).toMatch(/^re_/);
    await expect(stripe.refunds.create({ payment_intent: intent, amount: 800 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'amount_too_large',
    });
    expect(await stripe.refunds.create({ payment_intent: intent })).toMatchObject({ amount: 700 });
    await expect(stripe.refunds.create({ payment_intent: intent })).rejects.toMatchObject({ code: 'charge_already_refunded' });
    const deadline = Date.now() + 5_000;
    while (
      received.filter((r) => r.event.type === 'charge.refunded' && (r.event.data.object as Stripe.Charge).payment_intent === intent)
        .length < 2 &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const amounts = received
      .filter((r) => r.event.type === 'charge.refunded' && (r.event.data.object as Stripe.Charge).payment_intent === intent)
      .map((r) => (r.event.data.object as Stripe.Charge).amount_refunded)
      .sort((a, b) => a - b);
    expect(amounts).toEqual([300, 1_000]);
  });

  it('lists events newest first, by type, created[gte], limit and starting_after, with has_more', async () => {
    const since = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 3; i++) await stripe.checkout.sessions.expire((await newSession()).id);
    const first = await stripe.events.list({ type: 'checkout.session.expired', created: { gte: since }, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const rest = await stripe.events.list({
      type: 'checkout.session.expired',
      created: { gte: since },
      limit: 2,
      starting_after: defined(first.data[1]).id,
    });
    const all = [...first.data, ...rest.data].filter((e) => e.created >= since);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const ids = payments.ledger.events
      .filter((e) => e.type === 'checkout.session.expired' && e.created >= since)
      .map((e) => e.id)
      .reverse();
    expect(all.map((e) => e.id)).toEqual(ids.slice(0, all.length));
    const everything: string[] = [];
    for await (const event of stripe.events.list({ limit: 3 })) everything.push(event.id);
    expect(everything).toEqual(payments.ledger.events.map((e) => e.id).reverse());
  });
});

describe('webhook delivery', () => {
  it('retries a non-2xx answer on Stripe’s schedule, each attempt signed afresh', async () => {
    failures = [500, 503];
    const session = await newSession();
    await stripe.checkout.sessions.expire(session.id);
    const deadline = Date.now() + 5_000;
    while (
      !received.some((r) => r.event.type === 'checkout.session.expired' && (r.event.data.object as { id: string }).id === session.id) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received.filter((r) => (r.event.data.object as { id: string }).id === session.id)).toHaveLength(1);
    expect(payments.deliveryStats.failed).toBeGreaterThanOrEqual(2);
  });
});

function defined<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('missing');
  return value;
}
