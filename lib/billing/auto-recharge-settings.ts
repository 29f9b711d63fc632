/**
 * Auto-recharge's settings as owners read and set them (docs/funding.md, "Auto-recharge"), and
 * the one way the auto-recharge item is changed from a request: a put conditional on the version
 * read, with its audit events in the same transaction, made again from a fresh read when another
 * change came first (`change`). Nothing here calls Stripe, so the functions that only read or set
 * the settings carry no Stripe SDK (about 240 KB: docs/performance.md); the card's changes that do
 * are lib/billing/auto-recharge.ts.
 */
import { auditSourceOf } from '../auth/access.ts';
import { type AuditEventInput, type AuditSource, auditEventPut, changesOf } from '../db/audit-events.ts';
import { AutoRechargeChanged, type AutoRechargeRecord, autoRechargePut, getAutoRecharge, sendAutoRecharge } from '../db/auto-recharge.ts';
import { paymentMethodRequired, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { requireOwner } from '../workspace/owners.ts';
import { billingUrl } from './billing-url.ts';
import { type AutoRechargeView, autoRechargeView, type SettingsChange, withSettings } from './recharge-rules.ts';

/** Changes that met another change of the item and were made again. */
const WRITE_ATTEMPTS = 8;

/** What a change makes of the item as read: the next item (null: nothing to write), its answer, and its audit events. */
export interface Made<T> {
  next: AutoRechargeRecord | null;
  result: T;
  events?: AuditEventInput[];
}

/**
 * Puts `change(read)` in place of the item as read, with its audit events (by `source`, at `now`)
 * in the same transaction, again from a fresh read when another change came first.
 */
export async function change<T>(
  orgId: string,
  audit: { source: AuditSource; now: Date },
  make: (read: AutoRechargeRecord) => Made<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const read = await getAutoRecharge(orgId);
    const { next, result, events = [] } = make(read);
    if (next === null) return result;
    try {
      await sendAutoRecharge([autoRechargePut(read, next), ...events.map((event) => auditEventPut(orgId, audit.source, event, audit.now))]);
      return result;
    } catch (error) {
      if (!(error instanceof AutoRechargeChanged) || attempt === WRITE_ATTEMPTS) throw error;
    }
  }
}

/** Owners only; the item read beside the membership (one round trip), shown only once the caller is known to be an owner. */
export async function readAutoRecharge(caller: Caller, orgId: string, now = new Date()): Promise<AutoRechargeView> {
  const [, settings] = await Promise.all([requireOwner(caller, orgId), getAutoRecharge(orgId)]);
  return autoRechargeView(settings, now);
}

/**
 * An owner's PUT (the body validated by its handler): enabling needs the saved card (409
 * `payment_method_required`, checked on the item the write is conditional on); a cap below the
 * credits, once both are known, is 400 naming `monthly_cap`. `auto_recharge.updated` with the
 * changes of its four settings; a PUT of the current values writes none.
 */
export async function putAutoRecharge(
  caller: Caller,
  orgId: string,
  settings: SettingsChange,
  baseUrl: string,
  now = new Date(),
): Promise<AutoRechargeView> {
  await requireOwner(caller, orgId);
  return change(orgId, { source: await auditSourceOf(caller), now }, (read) => {
    const next = withSettings(read, settings, billingUrl(baseUrl, orgId));
    if (next.credits !== null && next.monthly_cap !== null && next.monthly_cap < next.credits)
      throw validationFailed([{ path: ['body', 'monthly_cap'], code: 'too_small', message: `must be at least credits (${next.credits})` }]);
    if (settings.enabled && read.card === null) throw paymentMethodRequired();
    const changes = changesOf(read, next, SETTINGS);
    return {
      next,
      result: autoRechargeView({ ...next, version: read.version + 1 }, now),
      events: changes === null ? [] : [{ type: 'auto_recharge.updated', target: { type: 'organization', id: orgId }, changes }],
    };
  });
}

/** What `auto_recharge.updated` compares: the owner's four settings (never the engine's state). */
const SETTINGS = ['enabled', 'threshold', 'credits', 'monthly_cap'] as const;

export async function readCard(caller: Caller, orgId: string): Promise<{ payment_method: { brand: string; last4: string } | null }> {
  const [, { card }] = await Promise.all([requireOwner(caller, orgId), getAutoRecharge(orgId)]);
  return { payment_method: card === null ? null : { brand: card.brand, last4: card.last4 } };
}
