/**
 * The auto-recharge engine (docs/funding.md, "Auto-recharge"): off every run's path. Its triggers
 * come from the table's change stream (`rechargeConsumer`, beside usage, the alerts and the grants
 * ledger) and from the due pass (`runDueRecharges`, on the payments reconciler's schedule):
 *
 * - a charge, deduction or expiry taking the balance from ≥ `threshold` to below (a reversal
 *   triggers nothing);
 * - an owner's change of the settings or a new card, leaving it enabled (below the threshold);
 * - a retry, deferral or new month falling due, and a recharge in flight to look after.
 *
 * The rails are lib/billing/recharge-rules.ts's; every change of the auto-recharge item is a put
 * conditional on the version read, so concurrent triggers decide once: one claim (the purchase,
 * the cap reserved, the sequence + 1, in one transaction), then an off-session PaymentIntent with
 * Stripe idempotency key `auto-recharge:<organization_id>:<sequence>`. Its outcome, whether it
 * comes from Stripe's answer here, the webhook or the due pass, is applied once (`applyIntent`):
 * settled by lib/billing/settle.ts, failed, or open for authentication on a Checkout Session.
 */
import type Stripe from 'stripe';
import { purchaseConfig } from '../config.ts';
import {
  AutoRechargeChanged,
  type AutoRechargeRecord,
  autoRechargeOf,
  autoRechargePut,
  getAutoRecharge,
  listDueRecharges,
  sendAutoRecharge,
} from '../db/auto-recharge.ts';
import { AUTO_RECHARGE_SK, ORG_PARTITION_PREFIX, ORG_SK, orgIdOfPartition } from '../db/keys.ts';
import { getOrganization } from '../db/organizations.ts';
import {
  getPurchase,
  newPurchasePut,
  type PurchaseFailure,
  PurchaseNotSettleable,
  type PurchaseRecord,
  rechargePurchaseUpdate,
} from '../db/purchases.ts';
import { logger } from '../log.ts';
import { type ChangeRecord, compareSequenceNumbers, type StreamConsumer } from '../stream/dispatch.ts';
import type { FilterPattern } from '../stream/filter.ts';
import { newPurchaseId } from './purchases.ts';
import { ACTION_WINDOW_MS, afterActionRequired, afterFailure, decide, type Trigger } from './recharge-rules.ts';
import { settlePurchase } from './settle.ts';
import { stripeClient } from './stripe-client.ts';

/** Decisions that met a concurrent change of the item and were made again: each loss is another change written. */
const DECIDE_ATTEMPTS = 8;

export type RechargeOutcome = 'nothing' | 'noticed' | 'claimed' | 'settled' | 'failed' | 'action_required' | 'pending';

/** The idempotency key of a recharge's PaymentIntent: one sequence, one payment, however often it is asked for. */
export const rechargeIdempotencyKey = (orgId: string, sequence: number): string => `auto-recharge:${orgId}:${sequence}`;

function claimPurchase(orgId: string, now: Date) {
  const config = purchaseConfig();
  return (claim: { credits: number; sequence: number; month: string; recharged: number; cap: number }): PurchaseRecord => ({
    id: newPurchaseId(now),
    organization_id: orgId,
    source: 'auto_recharge',
    status: 'processing',
    credits: claim.credits,
    amount: claim.credits * config.unitAmount,
    currency: config.currency,
    checkout_session_id: '',
    checkout_url: null,
    payment_intent_id: null,
    failure: null,
    reversed_credits: 0,
    created_at: now.toISOString(),
    created_by_id: null,
    expires_at: new Date(now.getTime() + ACTION_WINDOW_MS).toISOString(),
    paid_at: null,
    recharge: { sequence: claim.sequence, month: claim.month, recharged_this_month: claim.recharged, monthly_cap: claim.cap },
  });
}

/**
 * One trigger for `orgId`: the rails decide from the item and the balance as read, and the
 * decision is written only if neither changed the item meanwhile (else decided again). A claim
 * then asks Stripe for the payment at once.
 */
export async function evaluate(orgId: string, trigger: Trigger, now = new Date()): Promise<RechargeOutcome> {
  const stripe = await stripeClient();
  if (!stripe) return 'nothing';
  for (let attempt = 1; ; attempt++) {
    const [settings, org] = await Promise.all([getAutoRecharge(orgId), getOrganization(orgId)]);
    if (!org) return 'nothing';
    const decision = decide(settings, org.credits, now, trigger, claimPurchase(orgId, now));
    if (decision.kind === 'nothing') return 'nothing';
    try {
      await sendAutoRecharge(
        decision.kind === 'claim'
          ? [autoRechargePut(settings, decision.next), newPurchasePut(decision.purchase)]
          : [autoRechargePut(settings, decision.next)],
      );
    } catch (error) {
      if (error instanceof AutoRechargeChanged && attempt < DECIDE_ATTEMPTS) continue;
      throw error;
    }
    if (decision.kind === 'write') return 'noticed';
    logger.info('auto-recharge claimed', { organization_id: orgId, purchase_id: decision.purchase.id, trigger });
    return chargeClaimed(stripe, decision.purchase, decision.next, now);
  }
}

/** Stripe's card error as the SDK throws it: its PaymentIntent and what declined it. */
interface CardError {
  type?: string;
  statusCode?: number;
  code?: string;
  decline_code?: string;
  message?: string;
  payment_intent?: Stripe.PaymentIntent;
  raw?: { payment_intent?: Stripe.PaymentIntent };
}

/**
 * Asks Stripe for the claimed recharge's payment: off-session with the saved card, under the
 * sequence's idempotency key (so the due pass asking again gets the same PaymentIntent), then
 * applies what it answered. Stripe failing leaves the recharge in flight for the due pass.
 */
export async function chargeClaimed(stripe: Stripe, purchase: PurchaseRecord, settings: AutoRechargeRecord, now: Date) {
  const card = settings.card;
  const sequence = purchase.recharge?.sequence;
  if (!card || sequence === undefined) {
    return applyFailure(purchase, { code: 'payment_method_missing', decline_code: null, message: 'no saved card to charge' }, null, now);
  }
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripe.paymentIntents.create(
      {
        amount: purchase.amount,
        currency: purchase.currency,
        customer: card.customer,
        payment_method: card.id,
        confirm: true,
        off_session: true,
        metadata: { organization_id: purchase.organization_id, purchase_id: purchase.id },
      },
      { idempotencyKey: rechargeIdempotencyKey(purchase.organization_id, sequence) },
    );
  } catch (error) {
    const cardError = error as CardError;
    const declined = cardError.payment_intent ?? cardError.raw?.payment_intent;
    if (cardError.statusCode === 402 && declined) return applyIntent(stripe, purchase, declined, now);
    if (cardError.statusCode !== undefined && cardError.statusCode >= 400 && cardError.statusCode < 500 && cardError.statusCode !== 429) {
      // Stripe refused the request itself (the card detached meanwhile, …): a failure, not a blip.
      return applyFailure(
        purchase,
        {
          code: cardError.code ?? 'payment_failed',
          decline_code: cardError.decline_code ?? null,
          message: cardError.message ?? 'the payment failed',
        },
        null,
        now,
      );
    }
    logger.warn('auto-recharge: the payments provider failed; the due pass asks again', {
      organization_id: purchase.organization_id,
      purchase_id: purchase.id,
      error: (error as Error).message,
    });
    return 'pending';
  }
  return applyIntent(stripe, purchase, intent, now);
}

/**
 * A recharge's off-session PaymentIntent as it stands: succeeded → settled (once, lib/billing/settle.ts);
 * declined → failed; asking for authentication (`authentication_required` off-session, or
 * `requires_action`) → open on a Checkout Session for the same purchase. Only a recharge still
 * `processing` moves (the status read is each write's condition).
 */
export async function applyIntent(
  stripe: Stripe,
  purchase: PurchaseRecord,
  intent: Stripe.PaymentIntent,
  now: Date,
): Promise<RechargeOutcome> {
  if (intent.status === 'succeeded') return (await settlePurchase(purchase, intent.id, now)) ? 'settled' : 'nothing';
  if (purchase.status !== 'processing') return 'nothing';
  const error = intent.last_payment_error;
  if (intent.status === 'requires_action' || error?.code === 'authentication_required') return requireAction(stripe, purchase, intent, now);
  if (intent.status === 'requires_payment_method' && error) {
    return applyFailure(
      purchase,
      { code: error.code ?? 'payment_failed', decline_code: error.decline_code ?? null, message: error.message ?? 'the payment failed' },
      intent.id,
      now,
    );
  }
  return 'pending';
}

/** The recharge failed: the purchase `failed`, and the item's failure (lib/billing/recharge-rules.ts `afterFailure`), in one transaction. */
export async function applyFailure(
  purchase: PurchaseRecord,
  failure: PurchaseFailure,
  paymentIntentId: string | null,
  now: Date,
): Promise<RechargeOutcome> {
  for (let attempt = 1; ; attempt++) {
    const settings = await getAutoRecharge(purchase.organization_id);
    try {
      await sendAutoRecharge(
        [
          autoRechargePut(settings, afterFailure(settings, purchase, failure, now)),
          rechargePurchaseUpdate(purchase, { status: 'failed', failure, paymentIntentId }),
        ],
        (reasons) => (reasons[1]?.Code === 'ConditionalCheckFailed' ? new PurchaseNotSettleable() : null),
      );
      logger.info('auto-recharge failed', { organization_id: purchase.organization_id, purchase_id: purchase.id, code: failure.code });
      return 'failed';
    } catch (error) {
      // The purchase moved meanwhile (paid, failed, open): whoever moved it decided.
      if (error instanceof PurchaseNotSettleable) return 'nothing';
      if (error instanceof AutoRechargeChanged && attempt < DECIDE_ATTEMPTS) continue;
      throw error;
    }
  }
}

/**
 * The card asks for its owner: a Checkout Session for the same purchase (its amount, its metadata:
 * paid there, it settles like any payment of it), the purchase `open` with it, and
 * `auto_recharge.action_required`. Unpaid at its expiry, the due pass fails it.
 */
async function requireAction(stripe: Stripe, purchase: PurchaseRecord, intent: Stripe.PaymentIntent, now: Date): Promise<RechargeOutcome> {
  const settings = await getAutoRecharge(purchase.organization_id);
  const returnUrl = settings.return_url;
  const customer = settings.card?.customer ?? (typeof intent.customer === 'string' ? intent.customer : intent.customer?.id);
  if (!returnUrl) {
    return applyFailure(
      purchase,
      { code: 'authentication_required', decline_code: 'authentication_required', message: 'the card asks for authentication' },
      intent.id,
      now,
    );
  }
  // Stripe keeps a session at most 24 h from its own clock's now: a minute less, so that the request is never refused for it.
  const expiresAt = Math.floor(Date.now() / 1000) + Math.floor(ACTION_WINDOW_MS / 1000) - 60;
  const metadata = { organization_id: purchase.organization_id, purchase_id: purchase.id };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        ...(customer ? { customer } : {}),
        client_reference_id: purchase.id,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: purchase.currency,
              unit_amount: purchase.amount,
              product_data: { name: `${purchase.credits} credits (auto-recharge)` },
            },
          },
        ],
        metadata,
        payment_intent_data: { metadata },
        success_url: returnUrl,
        cancel_url: returnUrl,
        expires_at: expiresAt,
      },
      { idempotencyKey: `auto-recharge-action:${purchase.id}` },
    );
  } catch (error) {
    logger.warn('auto-recharge: the page to authenticate could not be made; the due pass tries again', {
      purchase_id: purchase.id,
      error: (error as Error).message,
    });
    return 'pending';
  }
  if (!session.url) return 'pending';
  const action = { url: session.url, expiresAt: new Date(session.expires_at * 1000).toISOString() };
  const error = intent.last_payment_error;
  const failure: PurchaseFailure = {
    code: error?.code ?? 'authentication_required',
    decline_code: error?.decline_code ?? null,
    message: error?.message ?? 'the card asks for authentication',
  };
  for (let attempt = 1; ; attempt++) {
    const current = attempt === 1 ? settings : await getAutoRecharge(purchase.organization_id);
    try {
      await sendAutoRecharge(
        [
          autoRechargePut(current, afterActionRequired(current, purchase, action)),
          rechargePurchaseUpdate(purchase, {
            status: 'open',
            failure,
            paymentIntentId: intent.id,
            checkout: { sessionId: session.id, url: session.url, expiresAt: action.expiresAt },
          }),
        ],
        (reasons) => (reasons[1]?.Code === 'ConditionalCheckFailed' ? new PurchaseNotSettleable() : null),
      );
      logger.info('auto-recharge asks for authentication', { organization_id: purchase.organization_id, purchase_id: purchase.id });
      return 'action_required';
    } catch (caught) {
      if (caught instanceof PurchaseNotSettleable) return 'nothing';
      if (caught instanceof AutoRechargeChanged && attempt < DECIDE_ATTEMPTS) continue;
      throw caught;
    }
  }
}

/** Organizations one due pass takes on; the soonest due first, the rest in the next pass. */
const DUE_PASS_LIMIT = 100;

export interface DuePass {
  due: number;
  claimed: number;
  settled: number;
  failed: number;
  /** Organizations that could not be handled (the next pass tries again). */
  retried: number;
}

/**
 * One pass over the auto-recharges due by `now` (the payments reconciler's schedule): a recharge in
 * flight is asked of Stripe again (the same idempotency key) or, open past its window, failed; any
 * other due attempt is a trigger.
 */
export async function runDueRecharges(now = new Date()): Promise<DuePass> {
  const pass: DuePass = { due: 0, claimed: 0, settled: 0, failed: 0, retried: 0 };
  const stripe = await stripeClient();
  if (!stripe) return pass;
  for (const orgId of await listDueRecharges(now.toISOString(), DUE_PASS_LIMIT)) {
    pass.due += 1;
    try {
      const outcome = await dueOne(stripe, orgId, now);
      if (outcome === 'claimed' || outcome === 'settled') pass.claimed += 1;
      if (outcome === 'settled') pass.settled += 1;
      if (outcome === 'failed') pass.failed += 1;
    } catch (error) {
      logger.error('auto-recharge: a due attempt failed; the next pass tries again', {
        organization_id: orgId,
        error: (error as Error).message,
      });
      pass.retried += 1;
    }
  }
  return pass;
}

async function dueOne(stripe: Stripe, orgId: string, now: Date): Promise<RechargeOutcome> {
  const settings = await getAutoRecharge(orgId);
  if (settings.next_attempt_at === null || settings.next_attempt_at > now.toISOString()) return 'nothing';
  if (settings.in_flight === null) return evaluate(orgId, 'due', now);
  const purchase = await getPurchase(orgId, settings.in_flight);
  if (!purchase) return 'nothing';
  if (purchase.status === 'processing') return chargeClaimed(stripe, purchase, settings, now);
  if (purchase.status === 'open' && Date.parse(purchase.expires_at) <= now.getTime()) {
    // Its page first, so that it can no longer be paid once the recharge is failed.
    if (purchase.checkout_session_id) {
      await stripe.checkout.sessions.expire(purchase.checkout_session_id).catch((error: unknown) => {
        logger.warn('auto-recharge: an authentication page could not be expired', {
          purchase_id: purchase.id,
          error: (error as Error).message,
        });
      });
    }
    return applyFailure(
      purchase,
      {
        code: 'authentication_required',
        decline_code: 'authentication_required',
        message: 'the payment was not authenticated within 24 hours',
      },
      purchase.payment_intent_id,
      now,
    );
  }
  return 'nothing';
}

// ---------------------------------------------------------------- the stream's triggers

/** Changes of an organization's item (its balance) and of its auto-recharge item. */
export const RECHARGE_FILTERS: readonly FilterPattern[] = [
  { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: [ORG_SK] }, PK: { S: [{ prefix: ORG_PARTITION_PREFIX }] } } } },
  {
    eventName: ['INSERT', 'MODIFY'],
    dynamodb: { NewImage: { SK: { S: [AUTO_RECHARGE_SK] }, PK: { S: [{ prefix: ORG_PARTITION_PREFIX }] } } },
  },
];

const eventIdOf = (notice: unknown): unknown =>
  notice !== null && typeof notice === 'object' ? (notice as { event_id?: unknown }).event_id : undefined;

/**
 * The trigger a change is, if any: the balance going from ≥ the threshold to below by anything
 * but a reversal (`threshold` read once per batch for the organizations whose balance fell), or an
 * owner's change of the settings or the card leaving auto-recharge on.
 */
async function triggerOf(record: ChangeRecord, threshold: (orgId: string) => Promise<number | null>): Promise<Trigger | undefined> {
  const item = record.newImage;
  if (!item) return undefined;
  const orgId = orgIdOfPartition(String(item.PK));
  if (item.SK === ORG_SK) {
    const before = Number(record.oldImage?.credits ?? Number.NaN);
    const after = Number(item.credits ?? Number.NaN);
    if (!(after < before)) return undefined;
    // A refund's or dispute's reversal triggers no recharge.
    if (eventIdOf(item.last_reversal) !== eventIdOf(record.oldImage?.last_reversal)) return undefined;
    const line = await threshold(orgId);
    return line !== null && before >= line && after < line ? 'crossing' : undefined;
  }
  const next = autoRechargeOf(orgId, item);
  if (!next.enabled) return undefined;
  const previous = autoRechargeOf(orgId, record.oldImage);
  const owners =
    !previous.enabled ||
    previous.threshold !== next.threshold ||
    previous.credits !== next.credits ||
    previous.monthly_cap !== next.monthly_cap ||
    previous.card?.id !== next.card?.id;
  return owners ? 'owner' : undefined;
}

/** Organizations handled at once: each one's records in stream order. */
const RECHARGE_CONCURRENCY = 8;

export const rechargeConsumer: StreamConsumer = {
  name: 'auto-recharge',
  filters: RECHARGE_FILTERS,
  async handle(records) {
    const byOrg = new Map<string, ChangeRecord[]>();
    for (const record of records) {
      const orgId = orgIdOfPartition(String((record.newImage ?? record.oldImage)?.PK ?? ''));
      byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), record]);
    }
    const thresholds = new Map<string, Promise<number | null>>();
    const threshold = (orgId: string) => {
      let found = thresholds.get(orgId);
      if (!found) {
        found = getAutoRecharge(orgId).then((s) => (s.enabled ? s.threshold : null));
        thresholds.set(orgId, found);
      }
      return found;
    };
    const groups = [...byOrg.entries()];
    const failed: string[] = [];
    let next = 0;
    const worker = async () => {
      for (let group = groups[next++]; group !== undefined; group = groups[next++]) {
        const [orgId, own] = group;
        for (const record of own) {
          try {
            const trigger = await triggerOf(record, threshold);
            if (trigger) await evaluate(orgId, trigger);
          } catch (error) {
            logger.warn('auto-recharge trigger failed; its record comes again', {
              organization_id: orgId,
              detail: (error as Error).message,
            });
            failed.push(record.sequenceNumber);
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECHARGE_CONCURRENCY, groups.length) }, worker));
    return failed.sort(compareSequenceNumbers)[0];
  },
};
