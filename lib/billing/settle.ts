/**
 * The one owner of what a paid purchase and its reversals write (habit 15): which items go into
 * the transaction that credits a payment, and into the one that takes credits back after a refund
 * or a dispute. Every entry point (the webhook, the reconciler, the CLI) comes here through
 * lib/billing/stripe-events.ts; lib/db/purchases.ts only builds and sends the items.
 *
 * Exactly once: the settle transaction's first item is a marker keyed by the PaymentIntent id,
 * put `attribute_not_exists`, so any number, order and concurrency of events credit one payment
 * once. The balance and its billing event are in the same transaction, so at every instant the
 * balance equals the sum of the billing events.
 */
import { AutoRechargeChanged, type AutoRechargeRecord, autoRechargePut, getAutoRecharge } from '../db/auto-recharge.ts';
import { billingEventPut, newBillingEvent } from '../db/billing-events.ts';
import type { TransactItem } from '../db/client.ts';
import { creditItem } from '../db/credits.ts';
import {
  getPurchase,
  PaymentAlreadySettled,
  PurchaseNotSettleable,
  type PurchaseRecord,
  paymentMarkerPut,
  purchasePaidUpdate,
  purchaseReversedUpdate,
  ReversalChanged,
  sendReversal,
  sendSettle,
  slotFreedUpdate,
} from '../db/purchases.ts';
import { grantItems, purchasedCreditsExpiry } from './grants.ts';
import { afterSuccess, disabledFor, rechargedThisMonth } from './recharge-rules.ts';

export type ReversalReason = 'refund' | 'dispute';

/**
 * The grant a purchase's payment adds: its id follows from the purchase's (`pur_x` → `grt_x`), so
 * a reversal names it without a read, and the grants ledger draws a reversal from it first.
 */
export const grantIdOfPurchase = (purchaseId: string): string => `grt_${purchaseId.replace(/^pur_/, '')}`;

/**
 * The items that credit `purchase` for `paymentIntentId`, in one transaction: the payment's
 * marker first (its condition is what makes this once), the grant the payment adds with the
 * balance and the `credits.purchased` billing event (`grantItems`: the event names the grant; the
 * credits expire only where PURCHASED_CREDITS_EXPIRE_DAYS says), the purchase made `paid`, its
 * open-checkout slot freed. A checkout's balance update records it (`last_purchase`) for the
 * owners' `credits.purchased` notification.
 */
export function settleItems(
  purchase: PurchaseRecord,
  paymentIntentId: string,
  now: Date,
  autoRecharge?: AutoRechargeRecord,
): TransactItem[] {
  const at = now.toISOString();
  // An auto-recharge's settle also writes its item (the recharge no longer in flight, the count of
  // failures reset: lib/billing/recharge-rules.ts), and records its success on the balance for the
  // owners' `auto_recharge.succeeded`.
  const recharge = purchase.source === 'auto_recharge' && autoRecharge ? afterSuccess(autoRecharge, purchase, now) : undefined;
  const { items } = grantItems({
    orgId: purchase.organization_id,
    source: purchase.source === 'auto_recharge' ? 'auto_recharge' : 'purchase',
    credits: purchase.credits,
    expiresAt: purchasedCreditsExpiry(now),
    purchaseId: purchase.id,
    grantId: grantIdOfPurchase(purchase.id),
    now,
    eventType: 'credits.purchased',
    title: 'Credits purchased',
    description: `${purchase.credits} credits bought by card`,
    metadata: { purchase_id: purchase.id, payment_intent_id: paymentIntentId, source: purchase.source },
    // A checkout's owners hear of it (`credits.purchased`); an auto-recharge has events of its own.
    ...(purchase.source === 'checkout'
      ? {
          notice: {
            attribute: 'last_purchase' as const,
            value: { purchase_id: purchase.id, credits: purchase.credits, amount: purchase.amount, currency: purchase.currency },
          },
        }
      : recharge
        ? {
            notice: {
              attribute: 'last_recharge' as const,
              value: {
                purchase_id: purchase.id,
                credits: purchase.credits,
                amount: purchase.amount,
                currency: purchase.currency,
                recharged_this_month: rechargedThisMonth(recharge, now),
                monthly_cap: recharge.monthly_cap,
              },
            },
          }
        : {}),
  });
  return [
    paymentMarkerPut(paymentIntentId, purchase, at),
    ...items,
    purchasePaidUpdate(purchase, paymentIntentId, at),
    slotFreedUpdate(purchase.organization_id, purchase.id),
    // Last: sendSettle tells its condition's failure (the item changed since read) from the others'.
    ...(recharge && autoRecharge ? [autoRechargePut(autoRecharge, recharge)] : []),
  ];
}

/** Settles that met a change of the auto-recharge item or of the purchase, and read both again. */
const SETTLE_ATTEMPTS = 8;

/** Credits `purchase` for its succeeded PaymentIntent: true when this call did, false when it was credited already. */
export async function settlePurchase(purchase: PurchaseRecord, paymentIntentId: string, now: Date): Promise<boolean> {
  if (purchase.source !== 'auto_recharge') {
    try {
      await sendSettle(settleItems(purchase, paymentIntentId, now));
      return true;
    } catch (error) {
      if (error instanceof PaymentAlreadySettled) return false;
      throw error;
    }
  }
  // An auto-recharge's: its item and its purchase as read are conditions (the engine, the webhook
  // and the due pass may move them meanwhile): read again and settle again until paid, once.
  let current: PurchaseRecord | null = purchase;
  for (let attempt = 1; current && current.status !== 'paid'; attempt++) {
    const items = settleItems(current, paymentIntentId, now, await getAutoRecharge(current.organization_id));
    try {
      await sendSettle(items, items.length - 1);
      return true;
    } catch (error) {
      if (error instanceof PaymentAlreadySettled) return false;
      if (!(error instanceof AutoRechargeChanged || error instanceof PurchaseNotSettleable) || attempt === SETTLE_ATTEMPTS) throw error;
      current = await getPurchase(purchase.organization_id, purchase.id);
    }
  }
  return false;
}

/**
 * How many of a purchase's credits a refund or dispute takes back in all: a refund its share of the
 * amount refunded so far (rounded up, at most every credit), a dispute every credit. Cumulative, so
 * an event seen late or twice asks for what was already taken and takes nothing more.
 */
export function reversalTarget(
  purchase: Pick<PurchaseRecord, 'credits' | 'amount'>,
  reason: ReversalReason,
  amountRefunded: number,
): number {
  if (reason === 'dispute') return purchase.credits;
  if (purchase.amount <= 0) return 0;
  return Math.min(purchase.credits, Math.ceil((purchase.credits * amountRefunded) / purchase.amount));
}

/**
 * The items of one reversal: the purchase's `reversed_credits` (first: its condition, the total
 * as read, is what keeps concurrent reversals from taking twice), the balance (which may go below
 * zero: the money went back, and recording the reversal, `last_reversal`, for the owners'
 * `credits.reversed` notification), and the negative `credits.reversed` billing event. The event names
 * the purchase's grant, and the grants ledger draws it from that grant first, then the one
 * expiring soonest, the rest as debt (lib/billing/ledger.ts): the reversal itself touches no grant,
 * or the draw would count twice.
 */
export function reversalItems(
  purchase: PurchaseRecord,
  take: number,
  reason: ReversalReason,
  paymentIntentId: string,
  now: Date,
  autoRecharge?: AutoRechargeRecord,
): TransactItem[] {
  // A dispute turns auto-recharge off in the same transaction: once, with the reversal it causes.
  const disabled = reason === 'dispute' && autoRecharge ? disabledFor(autoRecharge, 'dispute', purchase.id) : null;
  const event = newBillingEvent({
    type: 'credits.reversed',
    title: reason === 'refund' ? 'Credits reversed: refund' : 'Credits reversed: dispute',
    description: `${take} purchased credits taken back after a ${reason}`,
    amount: -take,
    now,
    metadata: { purchase_id: purchase.id, reason, payment_intent_id: paymentIntentId, grant_id: grantIdOfPurchase(purchase.id) },
  });
  return [
    purchaseReversedUpdate(purchase, purchase.reversed_credits + take),
    creditItem(purchase.organization_id, -take, {
      attribute: 'last_reversal',
      value: { event_id: event.id, purchase_id: purchase.id, credits: take, reason },
    }),
    billingEventPut(purchase.organization_id, event),
    ...(disabled && autoRecharge ? [autoRechargePut(autoRecharge, disabled)] : []),
  ];
}

/** Reversals that met another one and read again: each loss is a reversal written, and a purchase has few. */
const REVERSAL_ATTEMPTS = 8;

/** Takes back what `reason` and `amountRefunded` call for and was not taken yet: the credits taken by this call (0 for none). */
export async function reversePurchase(
  purchase: PurchaseRecord,
  reason: ReversalReason,
  amountRefunded: number,
  paymentIntentId: string,
  now: Date,
): Promise<number> {
  let current: PurchaseRecord | null = purchase;
  for (let attempt = 1; current && current.status === 'paid'; attempt++) {
    const take = reversalTarget(current, reason, amountRefunded) - current.reversed_credits;
    if (take <= 0) return 0;
    const autoRecharge = reason === 'dispute' ? await getAutoRecharge(purchase.organization_id) : undefined;
    const items = reversalItems(current, take, reason, paymentIntentId, now, autoRecharge);
    try {
      await sendReversal(items, items.length > 3 ? 3 : undefined);
      return take;
    } catch (error) {
      if (!(error instanceof ReversalChanged || error instanceof AutoRechargeChanged) || attempt === REVERSAL_ATTEMPTS) throw error;
      current = await getPurchase(purchase.organization_id, purchase.id);
    }
  }
  return 0;
}
