/**
 * The webhook (docs/funding.md, "Webhook" and "Credited exactly once"): through the real handler
 * and chain on DynamoDB Local, against the local payments server through the real `stripe` SDK.
 * Signatures refused with nothing changed, malformed bodies never a 5xx, events naming nothing
 * here acknowledged, a paid checkout credited once whatever events come in whatever order, a
 * PaymentIntent that does not match credits nothing, declines and expiries recorded.
 */
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { handler as listEvents } from '../../functions/list-billing-events.ts';
import { handler as listGrants } from '../../functions/list-credit-grants.ts';
import { getPurchaseSlots } from '../../lib/db/purchases.ts';
import { defined } from '../../lib/defined.ts';
import { stripeSignature } from '../../lib/local/payments-server.ts';
import { atDepth } from '../support/depth.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import {
  balanceOf,
  deliver,
  eventsAbout,
  type PaymentsHarness,
  pay,
  purchaseOf,
  signed,
  startPayments,
  stripeOf,
  until,
} from '../support/payments.ts';
import { eventsOf } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

let harness: PaymentsHarness;
let stripe: Stripe;

beforeAll(async () => {
  harness = await startPayments();
  const { payments } = harness;
  stripe = stripeOf(payments);
});

afterAll(() => harness.close());

const secret = () => harness.payments.webhookSecret;

async function buy(orgId: string, owner: string, credits = 500) {
  const answer = await call(createPurchase, {
    method: 'POST',
    url: `/organizations/${orgId}/credit-purchases`,
    token: tokenFor(owner),
    body: { credits },
  });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; checkout_url: string; credits: number; amount: number };
}

const sumOfEvents = async (orgId: string) => (await eventsOf(orgId)).reduce((sum, event) => sum + event.amount, 0);
const sessionOf = (purchaseId: string) =>
  [...harness.payments.ledger.sessions.values()].find((session) => session.client_reference_id === purchaseId);

/** A purchase paid with its events held: the events a webhook would have had, none sent. */
async function paidHeld(orgId: string, owner: string, credits = 500) {
  const purchase = await buy(orgId, owner, credits);
  expect(await pay(purchase.checkout_url, '4242424242424242', 'hold')).toBe(303);
  const session = sessionOf(purchase.id);
  const intentId = String(session?.payment_intent);
  return { purchase, intentId, events: eventsAbout(harness.payments, [intentId, String(session?.id)]) };
}

const SIGNATURE_ISSUE = (message: string) => ({
  code: 'validation_failed',
  message: `header.stripe-signature: ${message}`,
  data: { issues: [{ path: ['header', 'stripe-signature'], code: 'invalid_signature', message }] },
});

describe('the signature, checked before anything reads the body', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ['missing', () => ({}), 'is required'],
    ['malformed', () => ({ 'stripe-signature': 'v1=abc' }), 'must be t=<unix seconds>,v1=<hex HMAC-SHA256>'],
    ['without a v1', (_body: string) => ({ 'stripe-signature': `t=${now()}` }), 'must be t=<unix seconds>,v1=<hex HMAC-SHA256>'],
    [
      'by another secret',
      (body: string) => signed(JSON.parse(body), 'whsec_not_this_endpoints').headers,
      'does not match the body with any signing secret of this endpoint',
    ],
    [
      'stale (301 s old)',
      (body: string) => signed(JSON.parse(body), secret(), now() - 301).headers,
      'is stale: its timestamp is more than 300 seconds from now',
    ],
  ])('400 when %s, and nothing changes', async (_, headersFor, message) => {
    const { orgId, users } = await workspace();
    const { purchase, events } = await paidHeld(orgId, users.owner);
    const body = JSON.stringify(
      events.find((event) => event.type === 'payment_intent.succeeded'),
      null,
      2,
    );

    const answer = await deliver(body, headersFor(body));

    expect([answer.status, withoutRequestId(answer.body)]).toEqual([400, SIGNATURE_ISSUE(message)]);
    expect(await balanceOf(orgId, users.owner)).toBe(0);
    expect((await purchaseOf(orgId, users.owner, purchase.id)).status).toBe('open');
  });

  it('400 for a body changed after signing (the signature covers the raw bytes)', async () => {
    const { orgId, users } = await workspace();
    const { events } = await paidHeld(orgId, users.owner);
    const { body, headers } = signed(events[1], secret());
    const answer = await deliver(body.replace('"livemode": false', '"livemode": true'), headers);
    expect(answer.status).toBe(400);
    expect(await balanceOf(orgId, users.owner)).toBe(0);
  });

  it('during a rotation both signing secrets are accepted, and any v1 of the header may match', async () => {
    const previous = process.env.STRIPE_WEBHOOK_SECRET;
    process.env.STRIPE_WEBHOOK_SECRET = JSON.stringify(['whsec_the_new_one', secret()]);
    try {
      const { orgId, users } = await workspace();
      const first = await paidHeld(orgId, users.owner);
      const second = await paidHeld(orgId, users.owner, 600);
      const old = signed(
        first.events.find((e) => e.type === 'payment_intent.succeeded'),
        secret(),
      );
      const fresh = signed(
        second.events.find((e) => e.type === 'payment_intent.succeeded'),
        'whsec_the_new_one',
      );
      const both = `${fresh.headers['stripe-signature']},v1=${'0'.repeat(64)}`;

      expect((await deliver(old.body, old.headers)).status).toBe(200);
      expect((await deliver(fresh.body, { 'stripe-signature': both })).status).toBe(200);
      expect(await balanceOf(orgId, users.owner)).toBe(1_100);
    } finally {
      process.env.STRIPE_WEBHOOK_SECRET = previous;
    }
  });

  it('404 without Stripe’s keys (no webhook here), whatever is sent', async () => {
    const previous = process.env.STRIPE_WEBHOOK_SECRET;
    delete process.env.STRIPE_WEBHOOK_SECRET;
    try {
      const answer = await deliver('{}', signed({}, 'whsec_x').headers);
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([404, { code: 'not_found', message: 'no such resource' }]);
    } finally {
      process.env.STRIPE_WEBHOOK_SECRET = previous;
    }
  });
});

describe('bodies: never a 5xx', () => {
  const event = { id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_nothing' } } };
  it.each([
    ['not JSON', '{"id": "evt_1",', 400, { code: 'invalid_json', message: 'body: must be a JSON document' }],
    ['an array', '[]', 400, ['body']],
    ['no id', JSON.stringify({ ...event, id: undefined }), 400, ['body', 'id']],
    ['an id that is no event’s', JSON.stringify({ ...event, id: 'pi_1' }), 400, ['body', 'id']],
    ['a type that is no string', JSON.stringify({ ...event, type: 7 }), 400, ['body', 'type']],
    ['no data.object', JSON.stringify({ ...event, data: {} }), 400, ['body', 'data', 'object']],
    ['data.object a string', JSON.stringify({ ...event, data: { object: 'x' } }), 400, ['body', 'data', 'object']],
    ['an empty body', '', 400, { code: 'invalid_json', message: 'body: must be a JSON document' }],
  ])('%s → %i', async (_, body, status, expected) => {
    const answer = await deliver(body, { 'stripe-signature': stripeSignature(secret(), body) });
    expect(answer.status).toBe(status);
    if (Array.isArray(expected)) {
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.data.issues.map((issue: { path: unknown }) => issue.path)).toEqual([expected]);
    } else expect(withoutRequestId(answer.body)).toMatchObject(expected);
  });

  it('413 for a body over 1 MiB, before its signature is checked', async () => {
    const answer = await deliver(`{"id":"evt_1","pad":"${'x'.repeat(1024 * 1024)}"}`, {});
    expect([answer.status, answer.body.code]).toEqual([413, 'payload_too_large']);
  });

  it('200 for a type not handled, and for events naming no payment, purchase or organization here', async () => {
    const customer = await stripe.customers.create({});
    const stranger = await stripe.checkout.sessions.create({
      mode: 'payment',
      customer: customer.id,
      line_items: [{ quantity: 500, price_data: { currency: 'usd', unit_amount: 1, product_data: { name: 'Credits' } } }],
      metadata: { organization_id: uniqueId('org_'), purchase_id: 'pur_nowhere' },
      payment_intent_data: { metadata: { organization_id: uniqueId('org_'), purchase_id: 'pur_nowhere' } },
      success_url: 'http://127.0.0.1/x',
    });
    expect(await pay(String(stranger.url), '4242424242424242', 'hold')).toBe(303);
    const theirs = eventsAbout(harness.payments, [
      String((await stripe.checkout.sessions.retrieve(stranger.id)).payment_intent),
      stranger.id,
    ]);
    const bodies = [
      { id: 'evt_other', type: 'customer.created', data: { object: customer } },
      { id: 'evt_ghost', type: 'payment_intent.succeeded', data: { object: { id: 'pi_never_made' } } },
      { id: 'evt_ghost2', type: 'charge.refunded', data: { object: { id: 'ch_never_made' } } },
      ...theirs,
    ];
    expect(theirs.length).toBeGreaterThanOrEqual(3);
    for (const body of bodies) {
      const { body: raw, headers } = signed(body, secret());
      const answer = await deliver(raw, headers);
      expect([answer.status, answer.body]).toEqual([200, { received: true }]);
    }
  });
});

describe('credited exactly once', () => {
  it('a paid checkout: the balance and its credits.purchased event within 5 s, the purchase paid, its slot freed', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const purchase = await buy(orgId, users.owner, 2_500);
    const paidAt = Date.now();

    expect(await pay(purchase.checkout_url)).toBe(303);
    const balance = await until(
      () => balanceOf(orgId, users.owner),
      (b) => b === 2_600,
    );
    const within = Date.now() - paidAt;
    await harness.payments.deliveriesSettled();

    expect(balance).toBe(2_600);
    expect(within).toBeLessThan(5_000);
    const session = sessionOf(purchase.id);
    const intentId = String(session?.payment_intent);
    const read = await purchaseOf(orgId, users.owner, purchase.id);
    expect(read).toMatchObject({ status: 'paid', payment_intent_id: intentId, checkout_url: null, failure: null, reversed_credits: 0 });
    expect(Date.parse(read.paid_at)).toBeGreaterThanOrEqual(paidAt - 1_000);
    const events = await call(listEvents, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.owner) });
    const grantId = purchase.id.replace(/^pur_/, 'grt_');
    expect(events.body.events[0]).toMatchObject({
      type: 'credits.purchased',
      amount: 2_500,
      currency: 'credits',
      metadata: { purchase_id: purchase.id, payment_intent_id: intentId, source: 'checkout', grant_id: grantId },
    });
    // The payment's grant, written in the same transaction: purchased credits never expire by default.
    const grants = await call(listGrants, { url: `/organizations/${orgId}/credit-grants`, token: tokenFor(users.owner) });
    expect(grants.status).toBe(200);
    expect(grants.body.grants.find((grant: { id: string }) => grant.id === grantId)).toEqual({
      id: grantId,
      source: 'purchase',
      credits: 2_500,
      remaining: 2_500,
      status: 'active',
      expires_at: null,
      expired_credits: 0,
      purchase_id: purchase.id,
      created_at: read.paid_at,
    });
    expect(await sumOfEvents(orgId)).toBe(2_600);
    expect((await getPurchaseSlots(orgId)).open).toEqual({});
    // Each of the payment's three events, delivered again: acknowledged, nothing more.
    for (const event of eventsAbout(harness.payments, [intentId, String(session?.id)])) {
      const { body, headers } = signed(event, secret());
      expect((await deliver(body, headers)).status).toBe(200);
    }
    expect(await balanceOf(orgId, users.owner)).toBe(2_600);
  });

  it(`fault: every event of ${atDepth(10, 200)} purchases 3×, shuffled and concurrent: 0 double, 0 lost`, async () => {
    const count = atDepth(10, 200);
    const orgs = await Promise.all(Array.from({ length: Math.ceil(count / 10) }, () => workspace()));
    const paid: { orgId: string; owner: string; credits: number; events: ReturnType<typeof eventsAbout> }[] = [];
    for (let i = 0; i < count; i++) {
      const { orgId, users } = defined(orgs[i % orgs.length], 'an organization');
      const credits = 500 + i;
      const { events } = await paidHeld(orgId, users.owner, credits);
      paid.push({ orgId, owner: users.owner, credits, events });
    }
    const deliveries = paid.flatMap((p) => [...p.events, ...p.events, ...p.events]);
    for (let i = deliveries.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [deliveries[i], deliveries[j]] = [defined(deliveries[j], 'an event'), defined(deliveries[i], 'an event')];
    }

    const answers = await Promise.all(
      deliveries.map((event) => signed(event, secret())).map(({ body, headers }) => deliver(body, headers)),
    );

    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body])).toEqual([]);
    const problems: string[] = [];
    for (const { orgId, users } of orgs) {
      const expected = paid.filter((p) => p.orgId === orgId).reduce((sum, p) => sum + p.credits, 0);
      const balance = await balanceOf(orgId, users.owner);
      const purchased = (await eventsOf(orgId)).filter((e) => e.type === 'credits.purchased');
      if (balance !== expected) problems.push(`${orgId}: balance ${balance}, expected ${expected}`);
      if (purchased.length !== paid.filter((p) => p.orgId === orgId).length)
        problems.push(`${orgId}: ${purchased.length} credits.purchased`);
      if ((await sumOfEvents(orgId)) !== balance) problems.push(`${orgId}: events sum to another figure than the balance`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it.each([
    [
      'amount',
      (intent: { amount: number }) => {
        intent.amount += 1;
      },
    ],
    [
      'currency',
      (intent: { currency: string }) => {
        intent.currency = 'eur';
      },
    ],
    [
      'metadata.purchase_id',
      (intent: { metadata: Record<string, string> }) => {
        intent.metadata = { ...intent.metadata, purchase_id: 'pur_another' };
      },
    ],
  ] as const)('a PaymentIntent whose %s does not match its purchase credits nothing', async (_, tamper) => {
    const { orgId, users } = await workspace();
    const { purchase, intentId, events } = await paidHeld(orgId, users.owner);
    tamper(defined(harness.payments.ledger.intents.get(intentId), 'the intent') as never);

    for (const event of events) {
      const { body, headers } = signed(event, secret());
      expect((await deliver(body, headers)).status).toBe(200);
    }

    expect(await balanceOf(orgId, users.owner)).toBe(0);
    expect((await purchaseOf(orgId, users.owner, purchase.id)).status).toBe('open');
    expect(await sumOfEvents(orgId)).toBe(0);
  });
});

describe('declines and expiries', () => {
  it('a declined card records the failure; the checkout stays open; a later success pays it', async () => {
    const { orgId, users } = await workspace();
    const purchase = await buy(orgId, users.owner);

    expect(await pay(purchase.checkout_url, '4000000000000002')).toBe(402);
    const failed = await until(
      () => purchaseOf(orgId, users.owner, purchase.id),
      (p) => p.failure !== null,
    );

    expect(failed).toMatchObject({
      status: 'open',
      checkout_url: purchase.checkout_url,
      failure: { code: 'card_declined', decline_code: 'generic_decline', message: expect.any(String) },
    });
    expect(await pay(purchase.checkout_url)).toBe(303);
    expect(
      await until(
        () => balanceOf(orgId, users.owner),
        (b) => b === 500,
      ),
    ).toBe(500);
  });

  it('an expired checkout reads expired, its slot freed; its late event again changes nothing', async () => {
    const { orgId, users } = await workspace();
    const purchase = await buy(orgId, users.owner);
    const session = defined(sessionOf(purchase.id), 'the session');

    await stripe.checkout.sessions.expire(session.id);
    const expired = await until(
      () => purchaseOf(orgId, users.owner, purchase.id),
      (p) => p.status === 'expired',
    );

    expect(expired).toMatchObject({ status: 'expired', checkout_url: null });
    expect((await getPurchaseSlots(orgId)).open).toEqual({});
    const [event] = eventsAbout(harness.payments, [session.id]).filter((e) => e.type === 'checkout.session.expired');
    const { body, headers } = signed(event, secret());
    expect((await deliver(body, headers)).body).toEqual({ received: true });
    expect((await purchaseOf(orgId, users.owner, purchase.id)).status).toBe('expired');
  });
});
