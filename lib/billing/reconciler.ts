/**
 * The payments reconciler (docs/funding.md, "The reconciler"): a payment whose webhook never came
 * (Stripe down, the webhook down past Stripe's retries, an endpoint misconfigured) is settled all
 * the same. Each pass lists Stripe's events of the handled types from its checkpoint less 10
 * minutes (events are listed by creation, and one may become visible a little after its time),
 * at least 2 minutes old (the webhook has had its chance), and handles each exactly as the
 * webhook does: the settle transaction's marker makes a payment credited once, whichever of the
 * two gets there first. Every minute deployed, so a lost webhook is settled within 4 minutes.
 */
import { getReconcilerCheckpoint, putReconcilerCheckpoint } from '../db/purchases.ts';
import { logger } from '../log.ts';
import { stripeClient } from './stripe-client.ts';
import { type EventOutcome, HANDLED_EVENT_TYPES, handleStripeEvent, type StripeEventInput } from './stripe-events.ts';

/** Events younger than this are the webhook's. */
export const RECONCILE_MIN_AGE_SECONDS = 120;
/** How far before its checkpoint a pass lists again. */
export const RECONCILE_OVERLAP_SECONDS = 600;
/** A first pass, and the CLI's, look this far back: Stripe retries a webhook for 3 days. */
export const RECONCILE_WINDOW_SECONDS = 3 * 86_400;

export interface ReconcileResult {
  events: number;
  /** Purchases this pass made paid, failed or expired. */
  settled: number;
  /** Reversals this pass wrote. */
  reversed: number;
}

export interface ReconcileOptions {
  now?: Date;
  /** The scheduled pass: from its checkpoint, events at least 2 minutes old, the checkpoint moved. The CLI: 3 days, any age. */
  scheduled: boolean;
  /** Only events about this organization's payments (those whose object names no organization are handled too: they change only their own). */
  orgId?: string | undefined;
}

const SETTLING: ReadonlySet<EventOutcome> = new Set(['settled', 'failed', 'expired']);

const organizationOf = (event: StripeEventInput): string | undefined => {
  const metadata = event.data.object.metadata;
  return metadata !== null && typeof metadata === 'object' && 'organization_id' in metadata && typeof metadata.organization_id === 'string'
    ? metadata.organization_id
    : undefined;
};

/** One pass; nothing without Stripe's key. */
export async function reconcilePayments(options: ReconcileOptions): Promise<ReconcileResult> {
  const result: ReconcileResult = { events: 0, settled: 0, reversed: 0 };
  const stripe = await stripeClient();
  if (!stripe) return result;
  const now = options.now ?? new Date();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const until = options.scheduled ? nowSeconds - RECONCILE_MIN_AGE_SECONDS : nowSeconds;
  const checkpoint = options.scheduled ? await getReconcilerCheckpoint() : null;
  const from = checkpoint === null ? nowSeconds - RECONCILE_WINDOW_SECONDS : checkpoint - RECONCILE_OVERLAP_SECONDS;
  // The SDK pages through the list (newest first) by `starting_after`.
  for await (const event of stripe.events.list({ types: [...HANDLED_EVENT_TYPES], created: { gte: from }, limit: 100 })) {
    if (event.created > until) continue;
    const input: StripeEventInput = {
      id: event.id,
      type: event.type,
      data: { object: event.data.object as unknown as Record<string, unknown> },
    };
    const orgId = organizationOf(input);
    if (options.orgId !== undefined && orgId !== undefined && orgId !== options.orgId) continue;
    const outcome = await handleStripeEvent(stripe, input, now);
    result.events += 1;
    if (SETTLING.has(outcome)) result.settled += 1;
    if (outcome === 'reversed') result.reversed += 1;
  }
  if (options.scheduled) await putReconcilerCheckpoint(until);
  logger.info('payments reconciled', { ...result, from, until });
  return result;
}
