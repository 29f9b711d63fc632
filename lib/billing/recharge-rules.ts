/**
 * Auto-recharge's rails, as pure functions of the auto-recharge item as read (docs/funding.md,
 * "Auto-recharge"): what a trigger does, and what a claim, a success, a failure, a card that asks
 * for authentication, a dispute or an owner's change make of the item. Each returns the next item
 * (with the notices its change sends the owners); the caller puts it conditional on the version
 * read, so two decisions made from one state cannot both be written.
 *
 * - off, no card, or a recharge in flight → nothing;
 * - `recharged_this_month + credits > monthly_cap` → `auto_recharge.cap_reached` once per UTC month
 *   and cap (again once the cap is raised), the next attempt at the next month's start;
 * - a recharge succeeded within the hour → deferred to an hour after it, `auto_recharge.deferred`
 *   once per deferral;
 * - a failure's retry still ahead → nothing (the failure's event said when);
 * - else a claim: the purchase, the cap reserved, the sequence + 1, one in flight.
 */
import type { AutoRechargeRecord, DisabledReason, RechargeNotice } from '../db/auto-recharge.ts';
import type { PurchaseFailure, PurchaseRecord } from '../db/purchases.ts';

/** At most one recharge succeeds per this. */
export const RECHARGE_SPACING_MS = 3_600_000;
/** A declined recharge is tried again this much later, while the balance is below the threshold. */
export const RETRY_AFTER_MS = 3_600_000;
/** A recharge whose card asks for authentication waits this long for its owner, then fails. */
export const ACTION_WINDOW_MS = 24 * 3_600_000;
/** The third consecutive failure disables auto-recharge. */
export const MAX_CONSECUTIVE_FAILURES = 3;
/**
 * A claimed recharge whose PaymentIntent no answer settled within this is driven again by the due
 * pass (the same Stripe idempotency key: the same PaymentIntent): a stream function that died
 * between the claim and Stripe's answer loses nothing.
 */
export const IN_FLIGHT_CHECK_MS = 2 * 60_000;

export const monthOf = (now: Date): string => now.toISOString().slice(0, 7);
export const nextMonthStart = (now: Date): string => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();

/** The month's recharges (the one in flight reserved): 0 in a month with none yet. */
export const rechargedThisMonth = (s: AutoRechargeRecord, now: Date): number => (s.month === monthOf(now) ? s.recharged : 0);

export interface AutoRechargeView {
  enabled: boolean;
  threshold: number | null;
  credits: number | null;
  monthly_cap: number | null;
  recharged_this_month: number;
  consecutive_failures: number;
  disabled_reason: DisabledReason | null;
  last_recharge_at: string | null;
  next_attempt_at: string | null;
  payment_method: { brand: string; last4: string } | null;
}

export function autoRechargeView(s: AutoRechargeRecord, now: Date): AutoRechargeView {
  return {
    enabled: s.enabled,
    threshold: s.threshold,
    credits: s.credits,
    monthly_cap: s.monthly_cap,
    recharged_this_month: rechargedThisMonth(s, now),
    consecutive_failures: s.consecutive_failures,
    disabled_reason: s.disabled_reason,
    last_recharge_at: s.last_recharge_at,
    // While one is in flight its due time is the engine's own check, not an attempt an owner waits for.
    next_attempt_at: s.in_flight === null ? s.next_attempt_at : null,
    payment_method: s.card === null ? null : { brand: s.card.brand, last4: s.card.last4 },
  };
}

export type Trigger = 'crossing' | 'owner' | 'due';

export type Decision =
  | { kind: 'nothing' }
  | { kind: 'write'; next: AutoRechargeRecord }
  | { kind: 'claim'; next: AutoRechargeRecord; purchase: PurchaseRecord };

const clean = (s: AutoRechargeRecord): AutoRechargeRecord => ({ ...s, notices: [] });

/** What a trigger does to the auto-recharge `s` at `balance`, `now`; `newPurchase` makes the claim's purchase. */
export function decide(
  s: AutoRechargeRecord,
  balance: number,
  now: Date,
  trigger: Trigger,
  newPurchase: (claim: { credits: number; sequence: number; month: string; recharged: number; cap: number }) => PurchaseRecord,
): Decision {
  const { threshold, credits, monthly_cap: cap } = s;
  if (!s.enabled || s.card === null || threshold === null || credits === null || cap === null) return { kind: 'nothing' };
  if (s.in_flight !== null) return { kind: 'nothing' };
  const nowIso = now.toISOString();
  if (balance >= threshold) {
    // Topped up meanwhile: a due retry or deferral has nothing left to do.
    if (trigger === 'due' && s.next_attempt_at !== null && s.next_attempt_at <= nowIso)
      return { kind: 'write', next: { ...clean(s), next_attempt_at: null } };
    return { kind: 'nothing' };
  }
  const month = monthOf(now);
  const recharged = rechargedThisMonth(s, now);
  if (recharged + credits > cap) {
    const key = `${month}#${cap}`;
    const resetsAt = nextMonthStart(now);
    if (s.cap_noticed === key && s.next_attempt_at === resetsAt) return { kind: 'nothing' };
    const notices: RechargeNotice[] =
      s.cap_noticed === key
        ? []
        : [
            {
              key: `cap_reached#${key}`,
              type: 'auto_recharge.cap_reached',
              data: { monthly_cap: cap, recharged_this_month: recharged, credits, balance, resets_at: resetsAt },
            },
          ];
    return { kind: 'write', next: { ...s, cap_noticed: key, next_attempt_at: resetsAt, notices } };
  }
  if (s.last_recharge_at !== null && now.getTime() - Date.parse(s.last_recharge_at) < RECHARGE_SPACING_MS) {
    const at = new Date(Date.parse(s.last_recharge_at) + RECHARGE_SPACING_MS).toISOString();
    if (s.next_attempt_at === at) return { kind: 'nothing' };
    return {
      kind: 'write',
      next: {
        ...s,
        next_attempt_at: at,
        notices: [{ key: `deferred#${at}`, type: 'auto_recharge.deferred', data: { balance, threshold, next_attempt_at: at } }],
      },
    };
  }
  // A failure's retry still ahead: it comes then (the failure's event said when).
  if (s.consecutive_failures > 0 && s.next_attempt_at !== null && s.next_attempt_at > nowIso && trigger !== 'owner')
    return { kind: 'nothing' };
  const sequence = s.sequence + 1;
  const purchase = newPurchase({ credits, sequence, month, recharged: recharged + credits, cap });
  return {
    kind: 'claim',
    purchase,
    next: {
      ...clean(s),
      in_flight: purchase.id,
      sequence,
      month,
      recharged: recharged + credits,
      next_attempt_at: new Date(now.getTime() + IN_FLIGHT_CHECK_MS).toISOString(),
    },
  };
}

/** The purchase's reservation, released from the month it was taken in (nothing if that month is over). */
const released = (s: AutoRechargeRecord, purchase: PurchaseRecord): number =>
  purchase.recharge && s.month === purchase.recharge.month ? Math.max(0, s.recharged - purchase.credits) : s.recharged;

/**
 * A recharge paid: no longer in flight, the count of failures reset, the last success now. Its
 * reservation stays (it is the month's recharge); one released by a failure is taken again.
 */
export function afterSuccess(s: AutoRechargeRecord, purchase: PurchaseRecord, now: Date): AutoRechargeRecord {
  const wasInFlight = s.in_flight === purchase.id;
  const reserved = purchase.status !== 'failed';
  return {
    ...clean(s),
    in_flight: wasInFlight ? null : s.in_flight,
    next_attempt_at: wasInFlight ? null : s.next_attempt_at,
    last_recharge_at: now.toISOString(),
    consecutive_failures: 0,
    recharged: !reserved && purchase.recharge && s.month === purchase.recharge.month ? s.recharged + purchase.credits : s.recharged,
  };
}

/**
 * A recharge failed (declined, or its authentication never came): the reservation released, one
 * more consecutive failure, a retry an hour later; the third disables it.
 */
export function afterFailure(s: AutoRechargeRecord, purchase: PurchaseRecord, failure: PurchaseFailure, now: Date): AutoRechargeRecord {
  const failures = s.consecutive_failures + 1;
  const disable = s.enabled && failures >= MAX_CONSECUTIVE_FAILURES;
  const retry = s.enabled && !disable;
  const notices: RechargeNotice[] = [
    {
      key: `failed#${purchase.id}`,
      type: 'auto_recharge.failed',
      data: {
        purchase_id: purchase.id,
        credits: purchase.credits,
        code: failure.code,
        decline_code: failure.decline_code,
        message: failure.message,
        consecutive_failures: failures,
      },
    },
  ];
  if (disable)
    notices.push({
      key: `disabled#${purchase.id}`,
      type: 'auto_recharge.disabled',
      data: { reason: 'consecutive_failures', consecutive_failures: failures },
    });
  return {
    ...s,
    in_flight: s.in_flight === purchase.id ? null : s.in_flight,
    recharged: released(s, purchase),
    consecutive_failures: failures,
    enabled: disable ? false : s.enabled,
    disabled_reason: disable ? 'consecutive_failures' : s.disabled_reason,
    next_attempt_at: retry ? new Date(now.getTime() + RETRY_AFTER_MS).toISOString() : null,
    notices,
  };
}

/** A recharge whose card asks for authentication: still in flight until paid on its page or its window ends. */
export function afterActionRequired(
  s: AutoRechargeRecord,
  purchase: PurchaseRecord,
  action: { url: string; expiresAt: string },
): AutoRechargeRecord {
  return {
    ...s,
    next_attempt_at: action.expiresAt,
    notices: [
      {
        key: `action_required#${purchase.id}`,
        type: 'auto_recharge.action_required',
        data: { purchase_id: purchase.id, credits: purchase.credits, action_url: action.url, expires_at: action.expiresAt },
      },
    ],
  };
}

/** Auto-recharge turned off for `reason` (a dispute, the card removed), with its event; null when it is off already. */
export function disabledFor(s: AutoRechargeRecord, reason: DisabledReason, cause: string): AutoRechargeRecord | null {
  if (!s.enabled) return null;
  return {
    ...s,
    enabled: false,
    disabled_reason: reason,
    next_attempt_at: s.in_flight === null ? null : s.next_attempt_at,
    notices: [
      {
        key: `disabled#${reason}#${cause}`,
        type: 'auto_recharge.disabled',
        data: { reason, consecutive_failures: s.consecutive_failures },
      },
    ],
  };
}

export interface SettingsChange {
  enabled: boolean;
  threshold?: number | undefined;
  credits?: number | undefined;
  monthly_cap?: number | undefined;
}

/**
 * An owner's PUT: enabling sets all three rails and, from off, clears the reason and the count of
 * failures (a PUT while on keeps both); disabling keeps the rails not given.
 */
export function withSettings(s: AutoRechargeRecord, change: SettingsChange, returnUrl: string): AutoRechargeRecord {
  const turningOn = change.enabled && !s.enabled;
  return {
    ...clean(s),
    enabled: change.enabled,
    threshold: change.threshold ?? s.threshold,
    credits: change.credits ?? s.credits,
    monthly_cap: change.monthly_cap ?? s.monthly_cap,
    disabled_reason: turningOn ? null : s.disabled_reason,
    consecutive_failures: turningOn ? 0 : s.consecutive_failures,
    // Off: nothing is due; on from off: a retry of before is the owner's decision now (the change triggers).
    next_attempt_at: s.in_flight !== null ? s.next_attempt_at : change.enabled && !turningOn ? s.next_attempt_at : null,
    return_url: returnUrl,
  };
}
