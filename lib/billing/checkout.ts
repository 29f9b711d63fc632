/**
 * Buying credits by card: an owner's checkout (docs/funding.md, "Purchases"). A Stripe Checkout
 * Session is made first and the purchase written only once it exists, so that Stripe failing
 * leaves nothing behind; the write is one transaction with the organization's open checkouts (at
 * most MAX_OPEN_CHECKOUTS, held exactly by the slots item's version) and the Idempotency-Key.
 *
 * An Idempotency-Key is claimed before Stripe is called and names the purchase id: concurrent
 * requests with one key make one purchase (the others 409 while it is made, then replay it), and
 * a retry after an attempt died takes its id over, so Stripe's own idempotency key
 * `purchase:<id>` answers it the same session.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type PurchaseConfig, purchaseConfig } from '../config.ts';
import { canonicalHash } from '../db/idempotency.ts';
import {
  claimPurchaseKey,
  getPurchase,
  getPurchaseKeyRecord,
  getPurchaseSlots,
  type PurchaseKeyRecord,
  type PurchaseRecord,
  type PurchaseSlots,
  PurchaseSlotsChanged,
  releasePurchaseKey,
  writeNewPurchase,
} from '../db/purchases.ts';
import { defined } from '../defined.ts';
import {
  idempotencyKeyInProgress,
  idempotencyKeyReused,
  paymentsNotEnabled,
  paymentsUpstreamFailed,
  purchaseLimitReached,
} from '../errors.ts';
import { logger } from '../log.ts';
import type { Caller } from '../model.ts';
import { requireOwner } from '../workspace/owners.ts';
import { billingUrl } from './billing-url.ts';
import { isOpen, MAX_OPEN_CHECKOUTS, newPurchaseId, type PurchaseView, purchaseView } from './purchases.ts';
import { stripeClient } from './stripe-client.ts';

/** How long a purchase's Idempotency-Key stays claimed by one attempt: longer than any function lives (25 s). */
const KEY_LEASE_MS = 60_000;
const KEY_TTL_SECONDS = 24 * 3600;
/**
 * Writes that lost the slots item to another purchase, retried from a fresh read: each loss is
 * another purchase written, so after MAX_OPEN_CHECKOUTS of them the slots are full and the loop
 * ends; the bound only guards against a bug.
 */
const SLOT_ATTEMPTS = 2 * MAX_OPEN_CHECKOUTS + 2;

export interface NewPurchase {
  caller: Caller;
  orgId: string;
  credits: number;
  idempotencyKey?: string | undefined;
  /** The API's base URL as the caller reached it: Stripe sends the buyer back to its console. */
  baseUrl: string;
  now?: Date;
}

type Stripe = NonNullable<Awaited<ReturnType<typeof stripeClient>>>;

/** Owners only. 201 with the purchase (`replayed` for an Idempotency-Key's second answer). */
export async function createCheckoutPurchase(request: NewPurchase): Promise<{ purchase: PurchaseView; replayed: boolean }> {
  const { caller, orgId } = request;
  const now = request.now ?? new Date();
  await requireOwner(caller, orgId);
  const stripe = await stripeClient();
  if (!stripe) throw paymentsNotEnabled();
  const config = purchaseConfig();
  const requestHash = canonicalHash({ credits: request.credits });
  const keyHash = request.idempotencyKey === undefined ? undefined : createHash('sha256').update(request.idempotencyKey).digest('hex');
  const owner = randomUUID();
  let purchaseId = newPurchaseId(now);
  let createdAt = now.toISOString();

  if (keyHash !== undefined) {
    const read = () => getPurchaseKeyRecord(orgId, caller.userId, keyHash, now.getTime());
    const answered = async (record: PurchaseKeyRecord) => {
      if (record.requestHash !== requestHash) throw idempotencyKeyReused();
      if (record.state !== 'completed') throw idempotencyKeyInProgress();
      const purchase = defined(await getPurchase(orgId, record.purchaseId), 'the purchase its Idempotency-Key names');
      return { purchase: purchaseView(purchase, now), replayed: true };
    };
    const held = await read();
    const dead = held?.state === 'in_progress' && held.requestHash === requestHash && held.leaseUntilMs < now.getTime();
    if (held && !dead) return answered(held);
    // A claim taken over from a dead attempt keeps its purchase id and creation time, so that the
    // session it may have made is the one Stripe answers to `purchase:<id>` (the same parameters).
    if (held && dead) {
      purchaseId = held.purchaseId;
      createdAt = held.createdAt;
    }
    const claim = { requestHash, purchaseId, createdAt, owner, leaseUntilMs: now.getTime() + KEY_LEASE_MS };
    const claimed = await claimPurchaseKey(
      orgId,
      caller.userId,
      keyHash,
      { ...claim, expiresAt: Math.floor(now.getTime() / 1000) + KEY_TTL_SECONDS },
      {
        nowMs: now.getTime(),
        deadOwner: dead ? held?.owner : undefined,
      },
    );
    if (!claimed) {
      // Another request with this key claimed it first: its answer, or 409 while it is made.
      const winner = await read();
      if (!winner) throw idempotencyKeyInProgress();
      return answered(winner);
    }
  }

  try {
    const purchase = await makePurchase(stripe, config, request, { purchaseId, createdAt, now, keyHash, owner });
    return { purchase: purchaseView(purchase, now), replayed: false };
  } catch (error) {
    if (keyHash !== undefined) await releasePurchaseKey(orgId, caller.userId, keyHash, owner);
    throw error;
  }
}

async function makePurchase(
  stripe: Stripe,
  config: PurchaseConfig,
  request: NewPurchase,
  at: { purchaseId: string; createdAt: string; now: Date; keyHash: string | undefined; owner: string },
): Promise<PurchaseRecord> {
  const { orgId, caller } = request;
  let slots = await getPurchaseSlots(orgId);
  if (openOf(slots, at.now).length >= MAX_OPEN_CHECKOUTS) throw purchaseLimitReached(MAX_OPEN_CHECKOUTS);
  // From the purchase's creation, not the clock: a retry that takes a dead attempt's purchase over
  // sends Stripe the very parameters of its `purchase:<id>` request.
  const expiresAt = Math.floor(Date.parse(at.createdAt) / 1000) + config.checkoutMinutes * 60;
  const amount = request.credits * config.unitAmount;
  const returnUrl = billingUrl(request.baseUrl, orgId);
  const metadata = { organization_id: orgId, purchase_id: at.purchaseId };
  let session: Awaited<ReturnType<Stripe['checkout']['sessions']['create']>>;
  let customerId: string;
  try {
    customerId =
      slots.customerId ??
      (await stripe.customers.create({ metadata: { organization_id: orgId } }, { idempotencyKey: `customer:${orgId}` })).id;
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer: customerId,
        client_reference_id: at.purchaseId,
        line_items: [
          {
            quantity: request.credits,
            price_data: { currency: config.currency, unit_amount: config.unitAmount, product_data: { name: 'Credits' } },
          },
        ],
        metadata,
        // No setup_future_usage: the card of a checkout is not saved.
        payment_intent_data: { metadata },
        success_url: returnUrl,
        cancel_url: returnUrl,
        expires_at: expiresAt,
      },
      { idempotencyKey: `purchase:${at.purchaseId}` },
    );
  } catch (error) {
    logger.error('the payments provider failed to make a checkout', {
      organization_id: orgId,
      purchase_id: at.purchaseId,
      error: (error as Error).message,
    });
    throw paymentsUpstreamFailed();
  }
  if (session.url === null || session.amount_total !== amount) throw paymentsUpstreamFailed();
  const purchase: PurchaseRecord = {
    id: at.purchaseId,
    organization_id: orgId,
    source: 'checkout',
    status: 'open',
    credits: request.credits,
    amount,
    currency: config.currency,
    checkout_session_id: session.id,
    checkout_url: session.url,
    payment_intent_id: null,
    failure: null,
    reversed_credits: 0,
    created_at: at.createdAt,
    created_by_id: caller.userId,
    expires_at: new Date(session.expires_at * 1000).toISOString(),
    paid_at: null,
  };
  const key = at.keyHash === undefined ? undefined : { orgId, userId: caller.userId, keyHash: at.keyHash, owner: at.owner };
  for (let attempt = 1; ; attempt++) {
    const open = Object.fromEntries(openOf(slots, at.now).map(([id, expiry]) => [id, expiry]));
    if (Object.keys(open).length >= MAX_OPEN_CHECKOUTS) break;
    open[purchase.id] = session.expires_at;
    try {
      await writeNewPurchase(purchase, { read: slots, open, customerId }, key);
      return purchase;
    } catch (error) {
      if (!(error instanceof PurchaseSlotsChanged) || attempt === SLOT_ATTEMPTS) throw error;
      slots = await getPurchaseSlots(orgId);
    }
  }
  // Another purchase took the last slot while this session was made: it is never paid.
  await stripe.checkout.sessions.expire(session.id).catch((error: unknown) => {
    logger.warn('a checkout refused for the open-checkout limit could not be expired', {
      session: session.id,
      error: (error as Error).message,
    });
  });
  throw purchaseLimitReached(MAX_OPEN_CHECKOUTS);
}

/** The slots' checkouts still open at `now` (an expired one frees its slot without waiting for Stripe's event). */
const openOf = (slots: PurchaseSlots, now: Date): [string, number][] =>
  Object.entries(slots.open).filter(([, expiry]) => isOpen({ status: 'open', expires_at: new Date(expiry * 1000).toISOString() }, now));
