/**
 * `credits.purchased` and `credits.reversed` on the owners' endpoints (docs/alerts.md): a checkout
 * paid on the local payments server's page and then refunded through the `stripe` SDK, the
 * webhook through the real handler, the table's stream read as `npm start` reads it and the
 * deliveries run by `npm start`'s consumer, to a receiver on 127.0.0.1. Each event once, with its
 * exact body, within 10 s; then Stripe's events sent again and every stream record of the
 * organization handed to the stream's function again make no second event.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as tableStream } from '../../functions/table-stream.ts';
import { receiver } from '../alerts/receivers.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { startLocalWorkers, webhooksQueue } from '../support/jobs.ts';
import { deliver, eventsAbout, type PaymentsHarness, pay, signed, startPayments, stripeOf, until } from '../support/payments.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

const seen: DynamoDBRecord[] = [];
const stream = await startTableStream({
  handler: (event) => {
    seen.push(...event.Records);
    return tableStream(event);
  },
});
let harness: PaymentsHarness;
let stripe: Stripe;
let stopWorkers: () => Promise<void>;

beforeAll(async () => {
  harness = await startPayments();
  const { payments } = harness;
  stripe = stripeOf(payments);
  stopWorkers = startLocalWorkers();
});

afterAll(async () => {
  await stopWorkers();
  await harness.close();
  await stream.stop();
});

const envelope = (orgId: string, type: string, data: Record<string, unknown>) => ({
  id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
  type,
  created_at: expect.any(String),
  organization_id: orgId,
  data,
});

describe("credits.purchased and credits.reversed, to the owners' endpoints", () => {
  it('sends each once, within 10 s, with the balance after it, however often Stripe and the stream send again', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100 });
    const hook = await receiver();
    const subscribed = await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: tokenFor(users.owner),
      body: { url: hook.url, events: ['credits.purchased', 'credits.reversed'] },
    });
    expect(subscribed.status).toBe(201);
    const created = await call(createPurchase, {
      method: 'POST',
      url: `/organizations/${orgId}/credit-purchases`,
      token: tokenFor(users.owner),
      headers: { 'idempotency-key': uniqueId('key_') },
      body: { credits: 500 },
    });
    const purchase = created.body as { id: string; checkout_url: string };

    // Act: paid, then 150 of its 500 cents refunded (150 credits taken back).
    const paidAt = Date.now();
    expect(await pay(purchase.checkout_url)).toBe(303);
    const afterPayment = await until(
      async () => hook.events(),
      (events) => events.length >= 1,
      10_000,
    );
    const purchasedInMs = (hook.received[0]?.at ?? Number.POSITIVE_INFINITY) - paidAt;
    const session = [...harness.payments.ledger.sessions.values()].find((s) => s.client_reference_id === purchase.id);
    const intentId = String(session?.payment_intent);
    const refundedAt = Date.now();
    await stripe.refunds.create({ payment_intent: intentId, amount: 150 });
    await until(
      async () => hook.events(),
      (events) => events.length >= 2,
      10_000,
    );
    const reversedInMs = (hook.received[1]?.at ?? Number.POSITIVE_INFINITY) - refundedAt;
    // Again: every Stripe event of the payment, then every stream record of the organization.
    await harness.payments.deliveriesSettled();
    for (const event of eventsAbout(harness.payments, [intentId, String(session?.id)])) {
      const { body, headers } = signed(event, harness.payments.webhookSecret);
      expect((await deliver(body, headers)).status).toBe(200);
    }
    await stream.catchUp();
    const records = seen.filter((record) => JSON.stringify(record.dynamodb?.Keys ?? {}).includes(`#${orgId}"`));
    expect((await tableStream({ Records: records })).batchItemFailures).toEqual([]);
    await stream.catchUp();
    await webhooksQueue().drained();

    // Assess
    expect(afterPayment).toEqual([
      envelope(orgId, 'credits.purchased', { purchase_id: purchase.id, credits: 500, amount: 500, currency: 'usd', balance: 600 }),
    ]);
    expect(hook.events()).toEqual([
      envelope(orgId, 'credits.purchased', { purchase_id: purchase.id, credits: 500, amount: 500, currency: 'usd', balance: 600 }),
      envelope(orgId, 'credits.reversed', { purchase_id: purchase.id, credits: 150, reason: 'refund', balance: 450 }),
    ]);
    expect(purchasedInMs).toBeLessThan(10_000);
    expect(reversedInMs).toBeLessThan(10_000);
  }, 60_000);

  it("sends a dispute's reversal of the whole purchase, to an endpoint subscribed to every type", async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const hook = await receiver();
    await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: tokenFor(users.owner),
      body: { url: hook.url, events: ['*'] },
    });
    const created = await call(createPurchase, {
      method: 'POST',
      url: `/organizations/${orgId}/credit-purchases`,
      token: tokenFor(users.owner),
      body: { credits: 600 },
    });
    const purchase = created.body as { id: string; checkout_url: string };

    // Act: the card that is disputed for the whole amount a second after it pays.
    expect(await pay(purchase.checkout_url, '4000000000000259')).toBe(303);
    const events = await until(
      async () => hook.events().filter((event) => event.type.startsWith('credits.')),
      (found) => found.some((event) => event.type === 'credits.reversed'),
      10_000,
    );

    // Assess: the purchase, then all of it taken back.
    expect(events).toEqual([
      envelope(orgId, 'credits.purchased', { purchase_id: purchase.id, credits: 600, amount: 600, currency: 'usd', balance: 600 }),
      envelope(orgId, 'credits.reversed', { purchase_id: purchase.id, credits: 600, reason: 'dispute', balance: 0 }),
    ]);
  }, 30_000);
});
