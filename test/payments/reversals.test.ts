/**
 * Refunds and disputes on the balance (docs/funding.md, "Refunds and disputes"): through the real
 * webhook handler on DynamoDB Local, the refunds made with the real `stripe` SDK on the local
 * payments server. Cumulative: a repeated or late event takes nothing more; a dispute takes all not
 * yet taken; the balance may go below zero, and then a run answers 402 with the negative balance
 * while reads answer as ever.
 */
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { handler as getCredits } from '../../functions/get-credits.ts';
import { handler as run } from '../../functions/run-social-operation.ts';
import { reversalTarget } from '../../lib/billing/settle.ts';
import { deductCredits } from '../../lib/db/organizations.ts';
import type { StripeEvent } from '../../lib/local/payments-ledger.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
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
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

let harness: PaymentsHarness;
let stripe: Stripe;

beforeAll(async () => {
  harness = await startPayments();
  const { payments } = harness;
  stripe = stripeOf(payments);
});

afterAll(() => harness.close());

/** A purchase of `credits`, paid (with `card`) and credited: its PaymentIntent id. */
async function paid(orgId: string, owner: string, credits: number, card = '4242424242424242') {
  const answer = await call(createPurchase, {
    method: 'POST',
    url: `/organizations/${orgId}/credit-purchases`,
    token: tokenFor(owner),
    body: { credits },
  });
  const before = await balanceOf(orgId, owner);
  expect(await pay(answer.body.checkout_url, card)).toBe(303);
  await until(
    () => balanceOf(orgId, owner),
    (balance) => balance === before + credits,
  );
  const session = [...harness.payments.ledger.sessions.values()].find((s) => s.client_reference_id === answer.body.id);
  return { purchaseId: answer.body.id as string, intentId: String(session?.payment_intent) };
}

const reversalsOf = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'credits.reversed');
const redeliver = async (event: StripeEvent | undefined) => {
  const { body, headers } = signed(event, harness.payments.webhookSecret);
  return deliver(body, headers);
};

describe('the share a refund takes back', () => {
  it.each([
    [1_000, 1_000, 0, 0],
    [1_000, 1_000, 1, 1],
    [1_000, 1_000, 300, 300],
    [1_000, 3_000, 1, 1],
    [1_000, 3_000, 1_500, 500],
    [999, 1_000, 1, 1],
    [1_000, 1_000, 1_000, 1_000],
  ])('%i credits paid %i: %i refunded takes %i (rounded up, never more than bought)', (credits, amount, refunded, expected) => {
    expect(reversalTarget({ credits, amount }, 'refund', refunded)).toBe(expected);
  });
  it('a dispute takes every credit', () => {
    expect(reversalTarget({ credits: 700, amount: 700 }, 'dispute', 0)).toBe(700);
  });
});

describe('charge.refunded and charge.dispute.created', () => {
  it('a partial refund takes its share; repeated, it takes nothing more; a second refund takes the rest; a late first event nothing', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const { purchaseId, intentId } = await paid(orgId, users.owner, 1_000);

    await stripe.refunds.create({ payment_intent: intentId, amount: 301 });
    await until(
      () => balanceOf(orgId, users.owner),
      (b) => b === 1_100 - 301,
    );
    await harness.payments.deliveriesSettled();
    const [firstRefund] = eventsAbout(harness.payments, [intentId]).filter((e) => e.type === 'charge.refunded');
    expect((await redeliver(firstRefund)).body).toEqual({ received: true });

    expect(await balanceOf(orgId, users.owner)).toBe(799);
    expect(await reversalsOf(orgId)).toEqual([
      {
        type: 'credits.reversed',
        amount: -301,
        title: 'Credits reversed: refund',
        description: '301 purchased credits taken back after a refund',
      },
    ]);
    await stripe.refunds.create({ payment_intent: intentId });
    await until(
      () => balanceOf(orgId, users.owner),
      (b) => b === 100,
    );
    await harness.payments.deliveriesSettled();
    expect((await redeliver(firstRefund)).status).toBe(200);

    expect(await balanceOf(orgId, users.owner)).toBe(100);
    expect((await reversalsOf(orgId)).map((e) => e.amount)).toEqual([-301, -699]);
    expect((await eventsOf(orgId)).reduce((sum, e) => sum + e.amount, 0)).toBe(100);
    expect(await purchaseOf(orgId, users.owner, purchaseId)).toMatchObject({ status: 'paid', reversed_credits: 1_000 });
  });

  it('a dispute takes all not yet reversed (after a partial refund); delivered again, nothing', async () => {
    const { orgId, users } = await workspace();
    // 0259 succeeds, then is disputed for the whole amount a second later.
    const { purchaseId, intentId } = await paid(orgId, users.owner, 800, '4000000000000259');
    await stripe.refunds.create({ payment_intent: intentId, amount: 200 });

    const after = await until(
      () => purchaseOf(orgId, users.owner, purchaseId),
      (p) => p.reversed_credits === 800,
    );
    await harness.payments.deliveriesSettled();
    const [dispute] = eventsAbout(harness.payments, [intentId]).filter((e) => e.type === 'charge.dispute.created');
    expect((await redeliver(dispute)).status).toBe(200);

    expect(after.reversed_credits).toBe(800);
    expect(await balanceOf(orgId, users.owner)).toBe(0);
    const reversals = await eventsOf(orgId);
    expect(reversals.filter((e) => e.type === 'credits.reversed').map((e) => [e.amount, e.title])).toEqual([
      [-200, 'Credits reversed: refund'],
      [-600, 'Credits reversed: dispute'],
    ]);
  });

  it('below zero after the credits were spent: a run answers 402 with the negative balance; reads answer as ever', async () => {
    const { orgId, users } = await workspace();
    const { intentId } = await paid(orgId, users.owner, 500);
    await deductCredits(orgId, 450, 'spent elsewhere', TEST_OPERATOR);

    await stripe.refunds.create({ payment_intent: intentId });
    await until(
      () => balanceOf(orgId, users.owner),
      (b) => b === -450,
    );
    const ran = await call(run, {
      method: 'POST',
      url: runUrl('instagram_profile', orgId),
      token: tokenFor(users.owner),
      body: { handle: 'natgeo' },
    });
    const credits = await call(getCredits, { url: `/organizations/${orgId}/credits`, token: tokenFor(users.viewer) });

    expect(ran.status).toBe(402);
    expect(withoutRequestId(ran.body)).toMatchObject({
      code: 'insufficient_credits',
      data: { balance: -450, billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing` },
    });
    expect([credits.status, credits.body.balance]).toEqual([200, -450]);
    expect((await eventsOf(orgId)).reduce((sum, e) => sum + e.amount, 0)).toBe(-450);
  });

  it('a refund whose payment’s own events never came credits the payment first, then takes back its share: once', async () => {
    const { orgId, users } = await workspace();
    const answer = await call(createPurchase, {
      method: 'POST',
      url: `/organizations/${orgId}/credit-purchases`,
      token: tokenFor(users.owner),
      body: { credits: 600 },
    });
    expect(await pay(answer.body.checkout_url, '4242424242424242', 'hold')).toBe(303);
    const session = [...harness.payments.ledger.sessions.values()].find((s) => s.client_reference_id === answer.body.id);
    await stripe.refunds.create({ payment_intent: String(session?.payment_intent), amount: 60 });

    await until(
      () => purchaseOf(orgId, users.owner, answer.body.id),
      (p) => p.reversed_credits === 60,
    );

    expect(await balanceOf(orgId, users.owner)).toBe(540);
    // Both may fall in one millisecond: compared as a set.
    expect((await eventsOf(orgId)).map((e) => [e.type, e.amount]).sort()).toEqual([
      ['credits.purchased', 600],
      ['credits.reversed', -60],
    ]);
  });
});
