/**
 * Credit purchases as an owner reads them (docs/funding.md): the view, the listing and one
 * purchase. Reads never call Stripe: an open checkout past its `expires_at` reads as `expired`
 * from the clock alone. Who may read is the owner check every purchase route shares.
 */
import { randomBytes } from 'node:crypto';
import { cursorSigningKey, type PurchaseConfig, purchaseConfig } from '../config.ts';
import { getPurchase, type PurchaseRecord, type PurchaseStatus, queryPurchases } from '../db/purchases.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { requireOwner } from '../workspace/owners.ts';

/** Open checkouts an organization may have at once. */
export const MAX_OPEN_CHECKOUTS = 10;

/**
 * A purchase as the API answers it: the record without Stripe's session id (the `checkout_url`
 * is what a client follows), and `created_by_id` null for a purchase no person made (auto-recharge).
 */
export type PurchaseView = Omit<PurchaseRecord, 'checkout_session_id' | 'created_by_id'> & { created_by_id: string | null };

export interface Pricing {
  unit_amount: number;
  currency: string;
  min_credits: number;
  max_credits: number;
}

export const pricingOf = (config: PurchaseConfig = purchaseConfig()): Pricing => ({
  unit_amount: config.unitAmount,
  currency: config.currency,
  min_credits: config.minCredits,
  max_credits: config.maxCredits,
});

/** `pur_` + the creation time (10 base-36 digits, so ids sort as they were made) + 16 random hex digits. */
export const newPurchaseId = (now: Date): string => `pur_${now.getTime().toString(36).padStart(10, '0')}${randomBytes(8).toString('hex')}`;

/** An open checkout past its expiry is expired, whether or not Stripe's event has come. */
export const isOpen = (purchase: Pick<PurchaseRecord, 'status' | 'expires_at'>, now: Date): boolean =>
  purchase.status === 'open' && Date.parse(purchase.expires_at) > now.getTime();

export function purchaseView(purchase: PurchaseRecord, now = new Date()): PurchaseView {
  // An auto-recharge waiting for its card's authentication fails at its expiry (a checkout expires).
  const lapsed = purchase.source === 'auto_recharge' ? 'failed' : 'expired';
  const status = purchase.status === 'open' && !isOpen(purchase, now) ? lapsed : purchase.status;
  return {
    id: purchase.id,
    organization_id: purchase.organization_id,
    source: purchase.source,
    status,
    credits: purchase.credits,
    amount: purchase.amount,
    currency: purchase.currency,
    checkout_url: status === 'open' ? purchase.checkout_url : null,
    payment_intent_id: purchase.payment_intent_id,
    failure: purchase.failure,
    reversed_credits: purchase.reversed_credits,
    created_at: purchase.created_at,
    created_by_id: purchase.created_by_id,
    expires_at: purchase.expires_at,
    paid_at: purchase.paid_at,
  };
}

/** Owners only: one purchase, or 404. */
export async function readPurchase(caller: Caller, orgId: string, purchaseId: string): Promise<PurchaseView> {
  const [, purchase] = await Promise.all([requireOwner(caller, orgId), getPurchase(orgId, purchaseId)]);
  if (!purchase) throw notFound();
  return purchaseView(purchase);
}

/** Purchases read per query while a `status` filter skips some: a page of at most 100 stays a few round trips. */
const READ_BATCH = 100;

/** Owners only: purchases newest first, `status` keeping one status, with the pricing a buyer needs. */
export async function listPurchases(
  caller: Caller,
  orgId: string,
  query: { status?: PurchaseStatus | undefined; limit: number; cursor?: string | undefined },
  now = new Date(),
): Promise<{ purchases: PurchaseView[]; pricing: Pricing; next_cursor: string | null; has_more: boolean }> {
  const scope = `credit-purchases:${orgId}:${query.status ?? ''}`;
  let after: string | undefined;
  if (query.cursor !== undefined) {
    const opened = openCursor(query.cursor, cursorSigningKey(), scope);
    if ('problem' in opened) throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
    after = opened.position;
  }
  const found: PurchaseView[] = [];
  const batchSize = () => (query.status === undefined ? query.limit + 1 - found.length : READ_BATCH);
  // The first page goes out with the owner check (one round trip); it is answered only if that passes.
  let [, batch] = await Promise.all([requireOwner(caller, orgId), queryPurchases(orgId, batchSize(), after)]);
  // One more than the page, to know whether another page follows.
  for (;;) {
    for (const purchase of batch.purchases) {
      const view = purchaseView(purchase, now);
      if (query.status === undefined || view.status === query.status) found.push(view);
    }
    if (found.length > query.limit || !batch.more) break;
    batch = await queryPurchases(orgId, batchSize(), batch.lastId);
  }
  const page = found.slice(0, query.limit);
  const hasMore = found.length > query.limit;
  const last = page.at(-1);
  return {
    purchases: page,
    pricing: pricingOf(),
    next_cursor: hasMore && last ? sealCursor(scope, last.id, cursorSigningKey()) : null,
    has_more: hasMore,
  };
}
