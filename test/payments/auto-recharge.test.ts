/**
 * Auto-recharge and the saved card (docs/funding.md, "Auto-recharge"): the five routes through
 * their real handlers, cards saved on the local payments server's page, the table's stream read as
 * `npm start` reads it (the engine's triggers), Stripe's webhooks through the real handler, the
 * owners' events delivered to a receiver, and the due pass driven with a clock an hour ahead
 * instead of waiting. One payments server, one stream, one receiver per organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { handler as createPaymentMethod } from '../../functions/create-payment-method.ts';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as deletePaymentMethod } from '../../functions/delete-payment-method.ts';
import { handler as getAutoRecharge } from '../../functions/get-auto-recharge.ts';
import { handler as getPaymentMethod } from '../../functions/get-payment-method.ts';
import { handler as putAutoRecharge } from '../../functions/put-auto-recharge.ts';
import { showAutoRecharge } from '../../lib/admin/auto-recharge.ts';
import { evaluate, runDueRecharges } from '../../lib/billing/recharge.ts';
import { listGrantsPage } from '../../lib/db/grants.ts';
import { deductCredits } from '../../lib/db/organizations.ts';
import { queryPurchases } from '../../lib/db/purchases.ts';
import { receiver } from '../alerts/receivers.ts';
import { TEST_OPERATOR, uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { startLocalWorkers, webhooksQueue } from '../support/jobs.ts';
import { balanceOf, type PaymentsHarness, pay, startPayments, until } from '../support/payments.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

const stream = await startTableStream();
let harness: PaymentsHarness;
let stopWorkers: () => Promise<void>;

beforeAll(async () => {
  harness = await startPayments();
  stopWorkers = startLocalWorkers();
});

afterAll(async () => {
  await stopWorkers();
  await harness.close();
  await stream.stop();
});

const HOUR = 3_600_000;
const url = (orgId: string, tail = '') => `/organizations/${orgId}/auto-recharge${tail}`;
const read = (orgId: string, token: string) => call(getAutoRecharge, { url: url(orgId), token });
const put = (orgId: string, token: string, body: unknown) => call(putAutoRecharge, { method: 'PUT', url: url(orgId), token, body });
const RAILS = { enabled: true, threshold: 1_000, credits: 500, monthly_cap: 1_000 };

/** Saves `card` as the organization's card on the setup page (and its authentication page for 3184). */
async function saveCard(orgId: string, owner: string, card = '4242424242424242'): Promise<void> {
  const created = await call(createPaymentMethod, { method: 'POST', url: url(orgId, '/payment-method'), token: tokenFor(owner) });
  expect(created.status).toBe(201);
  const status = await pay(created.body.checkout_url, card);
  if (status === 200) {
    const done = await fetch(`${created.body.checkout_url}/authenticate`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ outcome: 'complete' }),
    });
    expect(done.status).toBe(303);
  } else expect(status).toBe(303);
  await until(
    async () => (await call(getPaymentMethod, { url: url(orgId, '/payment-method'), token: tokenFor(owner) })).body.payment_method,
    (card) => card !== null,
  );
}

/** A workspace with `credits`, its owners' endpoint subscribed to every event, its card saved and its rails set. */
async function recharging(card: string, credits = 1_200, rails: Partial<typeof RAILS> = {}) {
  const { orgId, users } = await workspace({ credits });
  const hook = await receiver();
  await call(createWebhook, {
    method: 'POST',
    url: `/organizations/${orgId}/webhooks`,
    token: tokenFor(users.owner),
    body: { url: hook.url, events: ['*'] },
  });
  await saveCard(orgId, users.owner, card);
  expect((await put(orgId, tokenFor(users.owner), { ...RAILS, ...rails })).status).toBe(200);
  await stream.catchUp();
  const events = (type: string) => hook.events().filter((event) => event.type === type);
  return { orgId, owner: users.owner, users, hook, events };
}

/** Off at a test's end: its receiver closes with it, and a later due pass (a clock hours ahead) must find nothing of it to do. */
const off = async (orgId: string, owner: string) => expect((await put(orgId, tokenFor(owner), { enabled: false })).status).toBe(200);

const purchasesOf = async (orgId: string) => (await queryPurchases(orgId, 100)).purchases;
const settled = async () => {
  await stream.catchUp();
  await harness.payments.deliveriesSettled();
  await stream.catchUp();
  await webhooksQueue().drained();
};

describe('the auto-recharge routes', () => {
  it('reads a new one off, refuses enabling without a card (409), validates every field, and lets owners alone in', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'k', role: 'editor' },
    });

    const fresh = await read(orgId, owner);
    const noCard = await put(orgId, owner, RAILS);
    const invalid = await Promise.all(
      [
        [{ ...RAILS, enabled: 'yes' }, 'enabled'],
        [{ enabled: true, credits: 500, monthly_cap: 1_000 }, 'threshold'],
        [{ ...RAILS, threshold: -1 }, 'threshold'],
        [{ ...RAILS, threshold: 1_000_001 }, 'threshold'],
        [{ ...RAILS, credits: 499 }, 'credits'],
        [{ ...RAILS, monthly_cap: 10_000_001 }, 'monthly_cap'],
        [{ ...RAILS, credits: 2_000, monthly_cap: 1_000 }, 'monthly_cap'],
        [{ ...RAILS, colour: 'red' }, 'colour'],
      ].map(async ([body, field]) => [field, await put(orgId, owner, body)] as const),
    );
    const off = await put(orgId, owner, { enabled: false, threshold: 10 });
    const refused = async (token: string, org = orgId) =>
      Promise.all([
        read(org, token),
        put(org, token, { enabled: false }),
        call(createPaymentMethod, { method: 'POST', url: url(org, '/payment-method'), token }),
        call(getPaymentMethod, { url: url(org, '/payment-method'), token }),
        call(deletePaymentMethod, { method: 'DELETE', url: url(org, '/payment-method'), token }),
      ]);

    expect([fresh.status, fresh.body]).toEqual([
      200,
      {
        enabled: false,
        threshold: null,
        credits: null,
        monthly_cap: null,
        recharged_this_month: 0,
        consecutive_failures: 0,
        disabled_reason: null,
        last_recharge_at: null,
        next_attempt_at: null,
        payment_method: null,
      },
    ]);
    expect([noCard.status, noCard.body.code]).toEqual([409, 'payment_method_required']);
    for (const [field, answer] of invalid) {
      const issues = answer.body.data.issues as { path: string[]; message: string }[];
      // A field of the body is named by its path; an unknown one by the message at the body's.
      expect([answer.status, answer.body.code, issues.map((issue) => issue.path.join('.'))]).toEqual([
        400,
        'validation_failed',
        [field === 'colour' ? 'body' : `body.${field}`],
      ]);
      if (field === 'colour') expect(issues[0]?.message).toBe('has an unknown field "colour"');
    }
    expect([off.status, off.body.enabled, off.body.threshold, off.body.credits]).toEqual([200, false, 10, null]);
    for (const answer of [...(await refused(tokenFor(users.editor))), ...(await refused(tokenFor(users.viewer)))])
      expect([answer.status, answer.body.code]).toEqual([403, 'forbidden']);
    for (const answer of await refused(key.body.token)) expect([answer.status, answer.body.code]).toEqual([403, 'api_key_not_allowed']);
    for (const answer of [...(await refused(tokenFor(uniqueId('stranger_')))), ...(await refused(owner, uniqueId('org_')))])
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([404, { code: 'not_found', message: 'no such resource' }]);
  });

  it("saves a card on Stripe's setup page, reads it within 5 s, and removing it disables auto-recharge (204, also with none)", async () => {
    const { orgId, owner, events } = await recharging('4242424242424242', 5_000);
    const token = tokenFor(owner);

    const card = await call(getPaymentMethod, { url: url(orgId, '/payment-method'), token });
    const removed = await call(deletePaymentMethod, { method: 'DELETE', url: url(orgId, '/payment-method'), token });
    const again = await call(deletePaymentMethod, { method: 'DELETE', url: url(orgId, '/payment-method'), token });
    await settled();
    const after = await read(orgId, token);
    const reenabled = await put(orgId, token, RAILS);

    expect(card.body).toEqual({ payment_method: { brand: 'visa', last4: '4242' } });
    expect([removed.status, again.status]).toEqual([204, 204]);
    expect(after.body).toMatchObject({ enabled: false, disabled_reason: 'payment_method_removed', payment_method: null });
    expect(events('auto_recharge.disabled').map((event) => event.data)).toEqual([
      { reason: 'payment_method_removed', consecutive_failures: 0 },
    ]);
    expect([reenabled.status, reenabled.body.code]).toEqual([409, 'payment_method_required']);
    // Detached at Stripe: nothing can charge it any more.
    const { ledger } = harness.payments;
    const saved = [...ledger.setupIntents.values()].filter((setup) => setup.metadata.organization_id === orgId);
    expect(saved.map((setup) => ledger.paymentMethods.get(String(setup.payment_method))?.customer)).toEqual([null]);
  });
});

describe('recharging', () => {
  it('10 deductions crossing the threshold at once start one recharge, paid once; within the hour deferred, then due; then the cap', async () => {
    const { orgId, owner, events } = await recharging('4242424242424242', 1_200, { credits: 1_000, monthly_cap: 2_000 });

    // Act: 1,200 → 1,100 → … 200: one of them crosses 1,000.
    await Promise.all(Array.from({ length: 10 }, () => deductCredits(orgId, 100, 'a run', TEST_OPERATOR)));
    await settled();
    const first = await purchasesOf(orgId);
    const afterFirst = await balanceOf(orgId, owner);
    // Below again within the hour: deferred (once, however many charges follow).
    await deductCredits(orgId, 300, 'a run', TEST_OPERATOR);
    await settled();
    await deductCredits(orgId, 10, 'a run', TEST_OPERATOR);
    await settled();
    const deferredAt = (await read(orgId, tokenFor(owner))).body.next_attempt_at;
    // An hour later the due pass recharges; the month's cap (2,000) is then reached.
    await runDueRecharges(new Date(Date.now() + HOUR + 60_000));
    await settled();
    const second = await read(orgId, tokenFor(owner));
    await deductCredits(orgId, 1_000, 'a run', TEST_OPERATOR);
    await settled();
    // Any trigger now meets the cap, announced once however many come at once.
    await Promise.all(Array.from({ length: 5 }, () => evaluate(orgId, 'due')));
    await settled();

    // Assess
    expect(first.map((p) => [p.source, p.status, p.credits, p.created_by_id])).toEqual([['auto_recharge', 'paid', 1_000, null]]);
    expect(afterFirst).toBe(200 + 1_000);
    expect(events('auto_recharge.succeeded').map((event) => event.data)).toEqual([
      {
        purchase_id: first[0]?.id,
        credits: 1_000,
        amount: 1_000,
        currency: 'usd',
        balance: 1_200,
        recharged_this_month: 1_000,
        monthly_cap: 2_000,
      },
      expect.objectContaining({ credits: 1_000, balance: 1_890, recharged_this_month: 2_000, monthly_cap: 2_000 }),
    ]);
    expect(events('auto_recharge.deferred').map((event) => event.data)).toEqual([
      { balance: 900, threshold: 1_000, next_attempt_at: deferredAt },
    ]);
    expect(Date.parse(deferredAt) - Date.parse(String(first[0]?.paid_at))).toBeGreaterThanOrEqual(HOUR - 1_000);
    expect(second.body).toMatchObject({ enabled: true, recharged_this_month: 2_000, consecutive_failures: 0, next_attempt_at: null });
    expect(events('auto_recharge.cap_reached').map((event) => event.data)).toEqual([
      { monthly_cap: 2_000, recharged_this_month: 2_000, credits: 1_000, balance: 890, resets_at: expect.any(String) },
    ]);
    expect((await purchasesOf(orgId)).map((p) => p.status)).toEqual(['paid', 'paid']);
    const grants = await listGrantsPage(orgId, undefined, 10);
    expect(grants.grants.filter((grant) => grant.source === 'auto_recharge').map((grant) => grant.credits)).toEqual([1_000, 1_000]);
    await off(orgId, owner);
  }, 60_000);

  it('a recharge and a purchase settling together each credit once', async () => {
    // An owner enabling it below the threshold recharges at once, whatever the purchase paid meanwhile does.
    const { orgId, users } = await workspace({ credits: 1_000 });
    const owner = users.owner;
    await saveCard(orgId, owner);
    const checkout = await call(createPurchase, {
      method: 'POST',
      url: `/organizations/${orgId}/credit-purchases`,
      token: tokenFor(owner),
      body: { credits: 700 },
    });

    await Promise.all([put(orgId, tokenFor(owner), { ...RAILS, threshold: 5_000 }), pay(checkout.body.checkout_url)]);
    await settled();

    expect(await balanceOf(orgId, owner)).toBe(1_000 + 500 + 700);
    expect((await purchasesOf(orgId)).map((p) => [p.source, p.status]).sort()).toEqual([
      ['auto_recharge', 'paid'],
      ['checkout', 'paid'],
    ]);
    await off(orgId, owner);
  }, 30_000);

  it('a declined card fails, retries an hour later while below the threshold, and the third failure disables it', async () => {
    const { orgId, owner, events } = await recharging('4000000000000341');

    await deductCredits(orgId, 300, 'a run', TEST_OPERATOR);
    await settled();
    const once = await read(orgId, tokenFor(owner));
    await runDueRecharges(new Date(Date.now() + HOUR + 60_000));
    await settled();
    await runDueRecharges(new Date(Date.now() + 2 * HOUR + 120_000));
    await settled();
    const disabled = await read(orgId, tokenFor(owner));
    // On again (at a threshold the balance is above, so that nothing recharges after this test).
    const reenabled = await put(orgId, tokenFor(owner), { ...RAILS, threshold: 0 });

    expect(once.body).toMatchObject({ enabled: true, consecutive_failures: 1, recharged_this_month: 0 });
    expect(Date.parse(once.body.next_attempt_at) - Date.now()).toBeGreaterThan(HOUR - 60_000);
    expect(
      events('auto_recharge.failed').map((event) => [event.data.code, event.data.decline_code, event.data.consecutive_failures]),
    ).toEqual([
      ['card_declined', 'generic_decline', 1],
      ['card_declined', 'generic_decline', 2],
      ['card_declined', 'generic_decline', 3],
    ]);
    expect(events('auto_recharge.disabled').map((event) => event.data)).toEqual([
      { reason: 'consecutive_failures', consecutive_failures: 3 },
    ]);
    expect(disabled.body).toMatchObject({
      enabled: false,
      disabled_reason: 'consecutive_failures',
      consecutive_failures: 3,
      next_attempt_at: null,
    });
    expect((await purchasesOf(orgId)).map((p) => [p.status, p.failure?.code])).toEqual([
      ['failed', 'card_declined'],
      ['failed', 'card_declined'],
      ['failed', 'card_declined'],
    ]);
    expect(reenabled.body).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    expect(await balanceOf(orgId, owner)).toBe(900);
  }, 60_000);

  it('a card asking for authentication leaves the recharge open on a page its owner pays; unpaid for 24 h, it fails', async () => {
    const { orgId, owner, events } = await recharging('4000002760003184');

    await deductCredits(orgId, 300, 'a run', TEST_OPERATOR);
    await settled();
    const [open] = await purchasesOf(orgId);
    const asked = events('auto_recharge.action_required');
    // The operator's view (`admin payments auto-recharge`) names the recharge waiting on its owner.
    const [operatorView, ownersView] = await Promise.all([showAutoRecharge(orgId), read(orgId, tokenFor(owner))]);
    // Paid on-session: its page asks for authentication, completed.
    expect(await pay(String(open?.checkout_url), '4000002760003184')).toBe(200);
    const authenticated = await fetch(`${open?.checkout_url}/authenticate`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ outcome: 'complete' }),
    });
    await settled();
    const paid = await until(
      async () => (await purchasesOf(orgId))[0],
      (purchase) => purchase?.status === 'paid',
    );
    // The next one is left unpaid: 24 h later the due pass fails it.
    await runDueRecharges(new Date(Date.now() + HOUR + 60_000));
    await deductCredits(orgId, 600, 'a run', TEST_OPERATOR);
    await settled();
    await runDueRecharges(new Date(Date.now() + 2 * HOUR));
    await settled();
    const pending = (await purchasesOf(orgId))[0];
    await runDueRecharges(new Date(Date.now() + 27 * HOUR));
    await settled();
    const lapsed = (await purchasesOf(orgId))[0];

    expect([open?.source, open?.status, open?.checkout_url?.startsWith(harness.payments.url)]).toEqual(['auto_recharge', 'open', true]);
    expect(asked.map((event) => event.data)).toEqual([
      { purchase_id: open?.id, credits: 500, action_url: open?.checkout_url, expires_at: open?.expires_at },
    ]);
    expect(operatorView).toEqual({
      organization_id: orgId,
      ...ownersView.body,
      in_flight: open?.id,
      sequence: 1,
    });
    await expect(showAutoRecharge('org_nowhere_recharge')).rejects.toThrow('organization org_nowhere_recharge does not exist');
    expect(authenticated.status).toBe(303);
    expect([paid?.id, paid?.status]).toEqual([open?.id, 'paid']);
    expect(events('auto_recharge.succeeded')).toHaveLength(1);
    expect(pending?.status).toBe('open');
    expect([lapsed?.id, lapsed?.status, lapsed?.checkout_url]).toEqual([pending?.id, 'failed', null]);
    expect(
      events('auto_recharge.failed').map((event) => [event.data.purchase_id, event.data.code, event.data.consecutive_failures]),
    ).toEqual([[pending?.id, 'authentication_required', 1]]);
    expect(await balanceOf(orgId, owner)).toBe(1_200 - 300 + 500 - 600);
    await off(orgId, owner);
  }, 60_000);
});
