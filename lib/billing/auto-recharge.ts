/**
 * The organization's one saved card (docs/funding.md, "The card"): a Stripe setup session to save
 * it, saving it when the session completes, and removing it. These call Stripe; the settings,
 * which never do, are lib/billing/auto-recharge-settings.ts (whose `change` every write here goes
 * through: a put of the auto-recharge item conditional on the version read). What a change
 * triggers (a recharge below the threshold) is found on the table's stream by the engine
 * (lib/billing/recharge.ts), never here.
 *
 * A saved card is audited (docs/audit.md): `payment_method.saved` and `payment_method.removed`,
 * each one more item of the put's own transaction. The engine's changes of the item (claims,
 * failures, a disable) are money: billing events and the owners' notices, never audit events.
 */
import type Stripe from 'stripe';
import { auditSourceOf } from '../auth/access.ts';
import { type AuditEventInput, systemSource } from '../db/audit-events.ts';
import type { SavedCard } from '../db/auto-recharge.ts';
import { getPurchaseSlots, rememberCustomer } from '../db/purchases.ts';
import { paymentsNotEnabled, paymentsUpstreamFailed } from '../errors.ts';
import { logger } from '../log.ts';
import type { Caller } from '../model.ts';
import { requireOwner } from '../workspace/owners.ts';
import { change, type Made } from './auto-recharge-settings.ts';
import { billingUrl } from './billing-url.ts';
import { disabledFor } from './recharge-rules.ts';
import { stripeClient } from './stripe-client.ts';

/** A card's audit event: its target the PaymentMethod, its details what the owners see of it (never more). */
const cardEvent = (type: 'payment_method.saved' | 'payment_method.removed', card: SavedCard): AuditEventInput => ({
  type,
  target: { type: 'payment_method', id: card.id },
  details: { brand: card.brand, last4: card.last4 },
});

type StripeClient = NonNullable<Awaited<ReturnType<typeof stripeClient>>>;

/** The organization's one Stripe Customer (the checkouts' too): made once, under `customer:<organization id>`. */
async function customerOf(stripe: StripeClient, orgId: string): Promise<string> {
  const slots = await getPurchaseSlots(orgId);
  if (slots.customerId) return slots.customerId;
  const customer = await stripe.customers.create({ metadata: { organization_id: orgId } }, { idempotencyKey: `customer:${orgId}` });
  return rememberCustomer(orgId, customer.id);
}

/** How long the page that saves a card stays open: Stripe's most, less a minute. */
const SETUP_SECONDS = 24 * 3600 - 60;

/**
 * A Checkout Session that saves a card for off-session payments (`mode: setup`): once completed,
 * the webhook makes its card the organization's one card (`saveCardOfSession`).
 */
export async function startCardSetup(
  caller: Caller,
  orgId: string,
  baseUrl: string,
  now = new Date(),
): Promise<{ checkout_url: string; expires_at: string }> {
  await requireOwner(caller, orgId);
  const stripe = await stripeClient();
  if (!stripe) throw paymentsNotEnabled();
  const returnUrl = billingUrl(baseUrl, orgId);
  const metadata = { organization_id: orgId };
  let session: Stripe.Checkout.Session;
  try {
    const customer = await customerOf(stripe, orgId);
    session = await stripe.checkout.sessions.create({
      mode: 'setup',
      customer,
      metadata,
      setup_intent_data: { metadata },
      success_url: returnUrl,
      cancel_url: returnUrl,
      expires_at: Math.floor(now.getTime() / 1000) + SETUP_SECONDS,
    });
  } catch (error) {
    logger.error('the payments provider failed to make a card setup', { organization_id: orgId, error: (error as Error).message });
    throw paymentsUpstreamFailed();
  }
  if (!session.url) throw paymentsUpstreamFailed();
  return { checkout_url: session.url, expires_at: new Date(session.expires_at * 1000).toISOString() };
}

/**
 * The card removed (nothing to do without one): an enabled auto-recharge is disabled
 * (`payment_method_removed`, with its event), then the card is detached from the Customer. Its
 * `payment_method.removed` by the owner; none without a card. The disable it brings is the
 * engine's rail (`disabled_reason`, `auto_recharge.disabled`), not an owner's setting.
 */
export async function removeCard(caller: Caller, orgId: string, now = new Date()): Promise<void> {
  await requireOwner(caller, orgId);
  const removed = await change(orgId, { source: await auditSourceOf(caller), now }, (read) => {
    if (read.card === null) return { next: null, result: null };
    const disabled = disabledFor(read, 'payment_method_removed', `${read.card.id}#${read.version}`);
    return {
      next: { ...(disabled ?? { ...read, notices: [] }), card: null, card_changed_at: Math.floor(now.getTime() / 1000) },
      result: read.card,
      events: [cardEvent('payment_method.removed', read.card)],
    };
  });
  if (removed) await detach(removed.id);
}

async function detach(paymentMethodId: string): Promise<void> {
  const stripe = await stripeClient();
  await stripe?.paymentMethods.detach(paymentMethodId).catch((error: unknown) => {
    // Removed here whatever Stripe says: nothing charges a card the item no longer holds.
    logger.warn('a removed card could not be detached', { payment_method: paymentMethodId, error: (error as Error).message });
  });
}

/**
 * A completed setup session's card becomes the organization's one card (the earlier one detached,
 * the count of failures reset). A session older than the card's last change (a later card, or a
 * removal) saves nothing: events come in any order. True when this call saved it. Its
 * `payment_method.saved` by the system (`stripe`), and the replaced card's `payment_method.removed`
 * (a change of two cards: one event each).
 */
export async function saveCardOfSession(
  stripe: StripeClient,
  session: { id: string; created: number; organizationId: string; setupIntentId: string },
): Promise<boolean> {
  const setup = await stripe.setupIntents.retrieve(session.setupIntentId);
  const methodId = typeof setup.payment_method === 'string' ? setup.payment_method : setup.payment_method?.id;
  if (setup.status !== 'succeeded' || !methodId) return false;
  const method = await stripe.paymentMethods.retrieve(methodId);
  const customer = typeof method.customer === 'string' ? method.customer : method.customer?.id;
  if (!customer) return false;
  const card = { id: method.id, customer, brand: method.card?.brand ?? 'card', last4: method.card?.last4 ?? '' };
  const audit = { source: systemSource('stripe'), now: new Date() };
  const replaced = await change(session.organizationId, audit, (read): Made<SavedCard | null | undefined> => {
    if (read.card?.id === card.id || session.created < read.card_changed_at) return { next: null, result: undefined };
    return {
      next: { ...read, card, card_changed_at: session.created, consecutive_failures: 0, notices: [] },
      result: read.card,
      events: [...(read.card ? [cardEvent('payment_method.removed', read.card)] : []), cardEvent('payment_method.saved', card)],
    };
  });
  if (replaced === undefined) return false;
  if (replaced) await detach(replaced.id);
  logger.info('a card was saved', { organization_id: session.organizationId, session: session.id });
  return true;
}
