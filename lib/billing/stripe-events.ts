/**
 * What a Stripe event changes here, the same for the webhook, the reconciler and the CLI
 * (docs/funding.md, "Webhook"). An event is trusted for ids only: whatever it names is retrieved
 * from Stripe and acted on as it stands now, so a late, repeated or out-of-order event does what
 * the latest state calls for, and a forged body that passed no signature could change nothing
 * anyway. Which items each change writes is lib/billing/settle.ts's.
 */
import type Stripe from 'stripe';
import { expirePurchase, getPurchase, type PurchaseRecord, recordPurchaseFailure } from '../db/purchases.ts';
import { paymentsEventNotRecorded } from '../errors.ts';
import { logger } from '../log.ts';
import { saveCardOfSession } from './auto-recharge.ts';
import { applyFailure, applyIntent } from './recharge.ts';
import { type ReversalReason, reversePurchase, settlePurchase } from './settle.ts';

/** An event as the webhook validated it (or the events API listed it). */
export interface StripeEventInput {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * What handling an event did: `settled` (a purchase made paid by this call), `failed` (a declined
 * attempt recorded), `expired`, `reversed` (credits taken back), `unchanged` (nothing left to do:
 * done already, or not yet) and `ignored` (a type not handled, or one naming nothing here).
 */
export type EventOutcome = 'settled' | 'failed' | 'expired' | 'reversed' | 'saved' | 'action_required' | 'unchanged' | 'ignored';

export const HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.expired',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.requires_action',
  'charge.refunded',
  'charge.dispute.created',
] as const;

const idOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : value !== null && typeof value === 'object' && 'id' in value && typeof value.id === 'string'
      ? value.id
      : undefined;

/** Stripe answered that the object does not exist (in this account, in this mode): it names nothing here. */
const isMissing = (error: unknown): boolean => (error as { statusCode?: number } | null)?.statusCode === 404;

/** A Stripe read; a miss is undefined, any other failure means the event cannot be recorded now (5xx: Stripe retries). */
async function retrieve<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isMissing(error)) return undefined;
    logger.error('the payments provider failed while an event was handled', { what, error: (error as Error).message });
    throw paymentsEventNotRecorded();
  }
}

/** The purchase a PaymentIntent's metadata names, or undefined (logged) when it names none here. */
async function purchaseOf(intent: Stripe.PaymentIntent): Promise<PurchaseRecord | undefined> {
  const orgId = intent.metadata?.organization_id;
  const purchaseId = intent.metadata?.purchase_id;
  const purchase = orgId && purchaseId ? await getPurchase(orgId, purchaseId) : null;
  if (!purchase)
    logger.warn('a payment names no purchase here', { payment_intent: intent.id, organization_id: orgId, purchase_id: purchaseId });
  return purchase ?? undefined;
}

/** The PaymentIntent pays exactly this purchase: its amount, its currency, its id in the metadata. */
const pays = (intent: Stripe.PaymentIntent, purchase: PurchaseRecord): boolean =>
  intent.amount === purchase.amount && intent.currency === purchase.currency && intent.metadata?.purchase_id === purchase.id;

/** Acts on a PaymentIntent as it stands: credits a succeeded one once, records a declined attempt. */
async function handleIntent(stripe: Stripe, intentId: string, now: Date): Promise<EventOutcome> {
  const intent = await retrieve('payment_intent', () => stripe.paymentIntents.retrieve(intentId));
  if (!intent) return 'ignored';
  const purchase = await purchaseOf(intent);
  if (!purchase) return 'ignored';
  if (!pays(intent, purchase)) {
    logger.error('a payment does not match its purchase: nothing credited', {
      payment_intent: intent.id,
      purchase_id: purchase.id,
      amount: intent.amount,
      currency: intent.currency,
    });
    return 'ignored';
  }
  if (intent.status === 'succeeded') {
    if (purchase.status === 'paid' && purchase.payment_intent_id === intent.id) return 'unchanged';
    return (await settlePurchase(purchase, intent.id, now)) ? 'settled' : 'unchanged';
  }
  // An auto-recharge's off-session payment, declined or asking for authentication: the engine's
  // own outcome (lib/billing/recharge.ts), applied once whoever brings it (its answer, this event).
  if (purchase.source === 'auto_recharge' && purchase.status === 'processing') {
    const outcome = await applyIntent(stripe, purchase, intent, now);
    return outcome === 'failed' ? 'failed' : outcome === 'action_required' ? 'action_required' : 'unchanged';
  }
  const error = intent.last_payment_error;
  if (intent.status === 'requires_payment_method' && error) {
    const failure = {
      code: error.code ?? 'payment_failed',
      decline_code: error.decline_code ?? null,
      message: error.message ?? 'the payment failed',
    };
    return (await recordPurchaseFailure(purchase.organization_id, purchase.id, failure)) ? 'failed' : 'unchanged';
  }
  return 'unchanged';
}

async function handleSession(stripe: Stripe, sessionId: string, now: Date): Promise<EventOutcome> {
  const session = await retrieve('checkout.session', () => stripe.checkout.sessions.retrieve(sessionId));
  if (session?.mode === 'setup') return handleSetup(stripe, session);
  if (session?.mode !== 'payment') return 'ignored';
  const intentId = idOf(session.payment_intent);
  if (session.status === 'complete' && intentId) return handleIntent(stripe, intentId, now);
  if (session.status !== 'expired') return 'unchanged';
  const orgId = session.metadata?.organization_id;
  const purchaseId = session.metadata?.purchase_id;
  const purchase = orgId && purchaseId ? await getPurchase(orgId, purchaseId) : null;
  if (!purchase || purchase.checkout_session_id !== session.id) {
    logger.warn('an expired checkout names no purchase here', { session: session.id, organization_id: orgId, purchase_id: purchaseId });
    return 'ignored';
  }
  if (purchase.source === 'auto_recharge') {
    // An auto-recharge's authentication page lapsed: the recharge failed (its reservation released).
    if (purchase.status !== 'open') return 'unchanged';
    const failure = {
      code: 'authentication_required',
      decline_code: 'authentication_required',
      message: 'the payment was not authenticated within 24 hours',
    };
    return (await applyFailure(purchase, failure, purchase.payment_intent_id, now)) === 'failed' ? 'failed' : 'unchanged';
  }
  return (await expirePurchase(purchase.organization_id, purchase.id)) ? 'expired' : 'unchanged';
}

/** A setup session completed: its card becomes the organization's one card (lib/billing/auto-recharge.ts). */
async function handleSetup(stripe: Stripe, session: Stripe.Checkout.Session): Promise<EventOutcome> {
  const orgId = session.metadata?.organization_id;
  const setupIntentId = idOf(session.setup_intent);
  if (!orgId || !setupIntentId) {
    logger.warn('a card setup names no organization here', { session: session.id });
    return 'ignored';
  }
  if (session.status !== 'complete') return 'unchanged';
  try {
    return (await saveCardOfSession(stripe, { id: session.id, created: session.created, organizationId: orgId, setupIntentId }))
      ? 'saved'
      : 'unchanged';
  } catch (error) {
    if (isMissing(error)) return 'ignored';
    if ((error as { statusCode?: number }).statusCode !== undefined) {
      logger.error('the payments provider failed while a card was saved', { session: session.id, error: (error as Error).message });
      throw paymentsEventNotRecorded();
    }
    throw error;
  }
}

async function handleReversal(stripe: Stripe, chargeId: string, reason: ReversalReason, now: Date): Promise<EventOutcome> {
  const charge = await retrieve('charge', () => stripe.charges.retrieve(chargeId));
  const intentId = idOf(charge?.payment_intent);
  if (!charge || !intentId) return 'ignored';
  if (reason === 'dispute' && !charge.disputed) return 'unchanged';
  // A reversal may come before the payment's own events: the payment is credited first, once.
  const settled = await handleIntent(stripe, intentId, now);
  if (settled === 'ignored') return 'ignored';
  const intent = await retrieve('payment_intent', () => stripe.paymentIntents.retrieve(intentId));
  const purchase = intent && (await purchaseOf(intent));
  if (!purchase || charge.amount !== purchase.amount) return 'ignored';
  const taken = await reversePurchase(purchase, reason, charge.amount_refunded, intentId, now);
  return taken > 0 ? 'reversed' : settled === 'settled' ? 'settled' : 'unchanged';
}

/** Handles one event as the webhook would: what it changed (logged). */
export async function handleStripeEvent(stripe: Stripe, event: StripeEventInput, now = new Date()): Promise<EventOutcome> {
  const object = event.data.object;
  const objectId = idOf(object.id);
  let outcome: EventOutcome = 'ignored';
  if (objectId !== undefined) {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.expired':
        outcome = await handleSession(stripe, objectId, now);
        break;
      case 'payment_intent.succeeded':
      case 'payment_intent.payment_failed':
      case 'payment_intent.requires_action':
        outcome = await handleIntent(stripe, objectId, now);
        break;
      case 'charge.refunded':
        outcome = await handleReversal(stripe, objectId, 'refund', now);
        break;
      case 'charge.dispute.created': {
        const chargeId = idOf(object.charge);
        if (chargeId !== undefined) outcome = await handleReversal(stripe, chargeId, 'dispute', now);
        break;
      }
    }
  }
  logger.info('a payments event was handled', { event: event.id, type: event.type, outcome });
  return outcome;
}
