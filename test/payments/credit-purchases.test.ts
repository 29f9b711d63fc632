/**
 * Buying credits (docs/funding.md, "Purchases"): the three purchase routes through their real
 * handlers on DynamoDB Local, against the local payments server through the real `stripe` SDK.
 * Who may buy, what a body may hold, the Idempotency-Key under concurrency, the open-checkout
 * limit, and Stripe failing: nothing written.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as createPurchase } from '../../functions/create-credit-purchase.ts';
import { handler as getPurchase } from '../../functions/get-credit-purchase.ts';
import { handler as listPurchases } from '../../functions/list-credit-purchases.ts';
import { canonicalHash } from '../../lib/db/idempotency.ts';
import { claimPurchaseKey, getPurchaseSlots } from '../../lib/db/purchases.ts';
import { type PaymentsServer, startPaymentsServer } from '../../lib/local/payments-server.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { stripeOf } from '../support/payments.ts';
import { tokenFor } from '../support/tokens.ts';

let payments: PaymentsServer;

beforeAll(async () => {
  payments = await startPaymentsServer();
  process.env.STRIPE_SECRET_KEY = payments.secretKey;
  process.env.STRIPE_API_BASE = payments.url;
});

afterAll(async () => {
  delete process.env.STRIPE_SECRET_KEY;
  delete process.env.STRIPE_API_BASE;
  await payments.close();
});

afterEach(() => payments.setDown(false));

const purchasesUrl = (orgId: string) => `/organizations/${orgId}/credit-purchases`;
const buy = (orgId: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  call(createPurchase, { method: 'POST', url: purchasesUrl(orgId), token, body, headers });
const list = (orgId: string, token: string, query = '') => call(listPurchases, { url: `${purchasesUrl(orgId)}${query}`, token });
const read = (orgId: string, token: string, id: string) => call(getPurchase, { url: `${purchasesUrl(orgId)}/${id}`, token });

const sessionsOf = (orgId: string) => [...payments.ledger.sessions.values()].filter((s) => s.metadata.organization_id === orgId);

describe('POST …/credit-purchases', () => {
  it('201: an open checkout with its Stripe session, the organization’s one customer, and Location', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const before = Date.now();

    const first = await buy(orgId, token, { credits: 2_500 });
    const second = await buy(orgId, token, { credits: 500 });

    expect(first.status).toBe(201);
    expect(first.headers.location).toBe(`/organizations/${orgId}/credit-purchases/${first.body.id}`);
    expect(first.headers['cache-control']).toBe('no-store');
    const [session] = sessionsOf(orgId).filter((s) => s.client_reference_id === first.body.id);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^pur_[0-9a-z]{26}$/),
      organization_id: orgId,
      source: 'checkout',
      status: 'open',
      credits: 2_500,
      amount: 2_500,
      currency: 'usd',
      checkout_url: session?.url,
      payment_intent_id: null,
      failure: null,
      reversed_credits: 0,
      created_at: expect.any(String),
      created_by_id: users.owner,
      expires_at: expect.any(String),
      paid_at: null,
    });
    expect(Date.parse(first.body.expires_at) - before).toBeGreaterThan(24 * 3600_000 - 60_000);
    const console = `http://127.0.0.1/console?organization_id=${orgId}#billing`;
    expect(session).toMatchObject({
      mode: 'payment',
      amount_total: 2_500,
      metadata: { organization_id: orgId, purchase_id: first.body.id },
      success_url: console,
      cancel_url: console,
    });
    expect(second.status).toBe(201);
    const customers = new Set(sessionsOf(orgId).map((s) => s.customer));
    expect(customers.size).toBe(1);
    expect((await getPurchaseSlots(orgId)).customerId).toBe([...customers][0]);
    // The PaymentIntent Checkout makes carries the same metadata.
    const page = await fetch(`${session?.url}`, {
      method: 'POST',
      body: new URLSearchParams({ card_number: '4000000000000002', exp_month: '12', exp_year: '2099', cvc: '123' }),
    });
    expect(page.status).toBe(402);
    const intent = payments.ledger.intents.get(String(payments.ledger.sessions.get(String(session?.id))?.payment_intent));
    expect(intent?.metadata).toEqual({ organization_id: orgId, purchase_id: first.body.id });
  });

  it('refuses editors and viewers (403), API keys (403 api_key_not_allowed) and non-members and unknown organizations (404, one body), on every route', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const made = await buy(orgId, owner, { credits: 500 });
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'k', role: 'editor' },
    });
    const attempts = (token: string, org = orgId) =>
      Promise.all([buy(org, token, { credits: 500 }), list(org, token), read(org, token, made.body.id)]);

    const answers = {
      editor: await attempts(tokenFor(users.editor)),
      viewer: await attempts(tokenFor(users.viewer)),
      key: await attempts(key.body.token),
      stranger: await attempts(tokenFor(uniqueId('stranger_'))),
      unknown: await attempts(owner, uniqueId('org_')),
    };

    for (const answer of [...answers.editor, ...answers.viewer])
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([
        403,
        { code: 'forbidden', message: 'only owners of the organization can change it, its members and its keys' },
      ]);
    for (const answer of answers.key) expect([answer.status, answer.body.code]).toEqual([403, 'api_key_not_allowed']);
    for (const answer of [...answers.stranger, ...answers.unknown])
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([404, { code: 'not_found', message: 'no such resource' }]);
    expect(sessionsOf(orgId)).toHaveLength(1);
  });

  it.each([
    ['missing credits', {}, ['body', 'credits']],
    ['credits below the minimum', { credits: 499 }, ['body', 'credits']],
    ['credits above the maximum', { credits: 100_001 }, ['body', 'credits']],
    ['fractional credits', { credits: 500.5 }, ['body', 'credits']],
    ['credits as a string', { credits: '500' }, ['body', 'credits']],
    ['another field', { credits: 500, currency: 'eur' }, ['body']],
  ])('400 for %s, naming it, and no checkout', async (_, body, path) => {
    const { orgId, users } = await workspace();
    const answer = await buy(orgId, tokenFor(users.owner), body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(path);
    if (path.length === 1) expect(JSON.stringify(answer.body.data.issues)).toContain('currency');
    expect(sessionsOf(orgId)).toHaveLength(0);
  });

  it('Idempotency-Key: a replay answers the first purchase, another body 409, concurrent requests make one purchase', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const headers = { 'idempotency-key': 'buy-1' };

    const first = await buy(orgId, token, { credits: 700 }, headers);
    const again = await buy(orgId, token, { credits: 700 }, headers);
    const other = await buy(orgId, token, { credits: 800 }, headers);
    const racing = await Promise.all(Array.from({ length: 6 }, () => buy(orgId, token, { credits: 900 }, { 'idempotency-key': 'buy-2' })));

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
    expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_reused']);
    const made = racing.filter((a) => a.status === 201);
    expect(new Set(made.map((a) => a.body.id)).size).toBe(1);
    for (const answer of racing.filter((a) => a.status !== 201))
      expect([answer.status, answer.body.code]).toEqual([409, 'idempotency_key_reused']);
    expect((await list(orgId, token)).body.purchases.map((p: { credits: number }) => p.credits)).toEqual([900, 700]);
    expect(sessionsOf(orgId)).toHaveLength(2);
  });

  it('Idempotency-Key: a retry after the first attempt died (its lease over) takes its purchase over: the same id and Stripe session', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const keyHash = createHash('sha256').update('died').digest('hex');
    const deadId = `pur_${Date.now().toString(36).padStart(10, '0')}${'a'.repeat(16)}`;
    const createdAt = new Date(Date.now() - 120_000).toISOString();
    // The dead attempt claimed the key and made its session, then was killed before writing.
    const claimed = await claimPurchaseKey(
      orgId,
      users.owner,
      keyHash,
      {
        requestHash: canonicalHash({ credits: 600 }),
        purchaseId: deadId,
        createdAt,
        owner: 'dead',
        leaseUntilMs: Date.now() - 1,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
      { nowMs: Date.now() - 120_000 },
    );
    const stripe = stripeOf(payments);
    const customer = await stripe.customers.create({ metadata: { organization_id: orgId } }, { idempotencyKey: `customer:${orgId}` });
    const metadata = { organization_id: orgId, purchase_id: deadId };
    const back = `http://127.0.0.1/console?organization_id=${orgId}#billing`;
    const made = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer: customer.id,
        client_reference_id: deadId,
        line_items: [{ quantity: 600, price_data: { currency: 'usd', unit_amount: 1, product_data: { name: 'Credits' } } }],
        metadata,
        payment_intent_data: { metadata },
        success_url: back,
        cancel_url: back,
        expires_at: Math.floor(Date.parse(createdAt) / 1000) + 1_440 * 60,
      },
      { idempotencyKey: `purchase:${deadId}` },
    );

    const alive = await buy(orgId, token, { credits: 600 }, { 'idempotency-key': 'died' });

    expect(claimed).toBe(true);
    expect([alive.status, alive.body.id, alive.body.created_at, alive.body.checkout_url]).toEqual([201, deadId, createdAt, made.url]);
    expect(sessionsOf(orgId).map((s) => s.id)).toEqual([made.id]);
    const replay = await buy(orgId, token, { credits: 600 }, { 'idempotency-key': 'died' });
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body.id]).toEqual([201, 'true', deadId]);
  });

  it('at most 10 open checkouts, exactly, however many are asked at once: 409 purchase_limit_reached', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);

    const answers = await Promise.all(Array.from({ length: 13 }, () => buy(orgId, token, { credits: 500 })));

    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(3);
    for (const answer of refused)
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([
        409,
        {
          code: 'purchase_limit_reached',
          message: 'the organization has 10 open checkouts, the most it may: pay or let one expire first',
          data: { max_open: 10 },
        },
      ]);
    expect((await list(orgId, token, '?limit=100')).body.purchases).toHaveLength(10);
    // A session made for a refused purchase (it lost the last slot while Stripe answered) is expired: never payable.
    expect(sessionsOf(orgId).filter((s) => s.status === 'open')).toHaveLength(10);
  });

  it('Stripe failing: 500 upstream_failed, no purchase, no slot taken, the key free for a retry', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    payments.setDown(true);

    const failed = await buy(orgId, token, { credits: 500 }, { 'idempotency-key': 'k' });

    expect([failed.status, withoutRequestId(failed.body)]).toEqual([
      500,
      { code: 'upstream_failed', message: 'the payments provider failed; no purchase was made, retry with backoff' },
    ]);
    expect((await list(orgId, token)).body.purchases).toEqual([]);
    expect((await getPurchaseSlots(orgId)).open).toEqual({});
    payments.setDown(false);
    expect((await buy(orgId, token, { credits: 500 }, { 'idempotency-key': 'k' })).status).toBe(201);
  });

  it('403 operation_not_enabled on a deployment without a Stripe key', async () => {
    const { orgId, users } = await workspace();
    const key = process.env.STRIPE_SECRET_KEY;
    delete process.env.STRIPE_SECRET_KEY;
    try {
      const answer = await buy(orgId, tokenFor(users.owner), { credits: 500 });
      expect([answer.status, withoutRequestId(answer.body)]).toEqual([
        403,
        {
          code: 'operation_not_enabled',
          message: 'buying credits is not enabled on this deployment: it has no payments provider configured',
        },
      ]);
    } finally {
      process.env.STRIPE_SECRET_KEY = key;
    }
  });
});

describe('GET …/credit-purchases and …/{purchase_id}', () => {
  it('lists newest first with the pricing, pages by a signed cursor, filters by status, and reads one', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const made = [];
    for (const credits of [500, 600, 700]) made.push((await buy(orgId, token, { credits })).body);

    const page = await list(orgId, token, '?limit=2');
    const rest = await list(orgId, token, `?limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    const paid = await list(orgId, token, '?status=paid');
    const forged = await list(orgId, token, '?cursor=abc');
    const one = await read(orgId, token, made[1].id);
    const missing = await read(orgId, token, `pur_${'0'.repeat(26)}`);
    const malformed = await read(orgId, token, 'pur_nope');

    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      purchases: [made[2], made[1]],
      pricing: { unit_amount: 1, currency: 'usd', min_credits: 500, max_credits: 100_000 },
      next_cursor: expect.any(String),
      has_more: true,
    });
    expect(rest.body).toMatchObject({ purchases: [made[0]], next_cursor: null, has_more: false });
    expect(paid.body.purchases).toEqual([]);
    expect([forged.status, forged.body.data.issues[0].path]).toEqual([400, ['query', 'cursor']]);
    expect([one.status, one.body]).toEqual([200, made[1]]);
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    expect([malformed.status, malformed.body.data.issues[0].path]).toEqual([400, ['path', 'purchase_id']]);
  });
});
