/**
 * The payments reconciler (docs/funding.md, "The reconciler"): a payment whose events were held
 * (`webhooks=hold`: a webhook that never came) is settled by a scheduled pass once its events are 2
 * minutes old, never twice, and by the CLI's pass at once; a pass meeting events the webhook
 * already handled changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { reconcilePayments } from '../../lib/billing/reconciler.ts';
import { group } from '../../scripts/admin/payments.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { balanceOf, type PaymentsHarness, pay, startPayments, until } from '../support/payments.ts';
import { eventsOf } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

let harness: PaymentsHarness;

beforeAll(async () => {
  harness = await startPayments();
});

afterAll(() => harness.close());

async function bought(orgId: string, owner: string, credits: number, webhooks: 'send' | 'hold') {
  const answer = await call(createPurchase, {
    method: 'POST',
    url: `/organizations/${orgId}/credit-purchases`,
    token: tokenFor(owner),
    body: { credits },
  });
  expect(await pay(answer.body.checkout_url, '4242424242424242', webhooks)).toBe(303);
}

const purchasedEvents = async (orgId: string) => (await eventsOf(orgId)).filter((e) => e.type === 'credits.purchased');
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('a scheduled pass', () => {
  it('leaves events younger than 2 minutes to the webhook, settles them after, once, and passes again with nothing to do', async () => {
    const { orgId, users } = await workspace();
    await bought(orgId, users.owner, 700, 'hold');

    const young = await reconcilePayments({ scheduled: true, now: inSeconds(60) });
    expect(await balanceOf(orgId, users.owner)).toBe(0);

    // The deployed schedule passes every minute: a payment is settled by the first pass after 2 minutes.
    const first = await reconcilePayments({ scheduled: true, now: inSeconds(121) });
    const second = await reconcilePayments({ scheduled: true, now: inSeconds(181) });

    expect(young.settled).toBe(0);
    expect(first.settled).toBe(1);
    expect(second).toMatchObject({ settled: 0, reversed: 0 });
    expect(second.events).toBeGreaterThan(0);
    expect(await balanceOf(orgId, users.owner)).toBe(700);
    expect(await purchasedEvents(orgId)).toHaveLength(1);
  });

  it('meets payments the webhook settled, concurrently with it, and credits nothing twice', async () => {
    const { orgId, users } = await workspace();
    await bought(orgId, users.owner, 900, 'send');

    const passes = await Promise.all([
      reconcilePayments({ scheduled: false, orgId }),
      reconcilePayments({ scheduled: false, orgId }),
      until(
        () => balanceOf(orgId, users.owner),
        (b) => b === 900,
      ),
    ]);
    await harness.payments.deliveriesSettled();

    expect(passes[2]).toBe(900);
    expect(await balanceOf(orgId, users.owner)).toBe(900);
    expect(await purchasedEvents(orgId)).toHaveLength(1);
  });
});

describe('npm run admin -- payments reconcile [--org ID]', () => {
  it('one pass now over events of any age: {"events", "settled", "reversed"}, one organization’s with --org', async () => {
    const { orgId, users } = await workspace();
    const other = await workspace();
    await bought(orgId, users.owner, 500, 'hold');
    await bought(other.orgId, other.users.owner, 600, 'hold');
    const reconcile = group.commands[0];

    const once = await reconcile?.run({ orgId }, { local: false, dev: null, operator: async () => TEST_OPERATOR });
    const again = await reconcile?.run({ orgId }, { local: false, dev: null, operator: async () => TEST_OPERATOR });

    // A checkout's payment raises payment_intent.succeeded and checkout.session.completed: one settles it.
    expect(once).toEqual({ events: 2, settled: 1, reversed: 0 });
    expect(again).toEqual({ events: 2, settled: 0, reversed: 0 });
    expect(await balanceOf(orgId, users.owner)).toBe(500);
    expect(await balanceOf(other.orgId, other.users.owner)).toBe(0);
  });
});
