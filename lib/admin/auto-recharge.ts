/**
 * What an operator sees of an organization's auto-recharge (docs/funding.md, "Auto-recharge"):
 * the owners' view, and the engine's own state an operator asks about when a customer calls
 * ("is a recharge under way?"): the purchase in flight and the attempts made. Read only: only an
 * owner's PUT enables it, and an owner's DELETE of the card turns it off.
 */
import { type AutoRechargeView, autoRechargeView } from '../billing/recharge-rules.ts';
import { getAutoRecharge } from '../db/auto-recharge.ts';
import { requireOrganization } from './organizations.ts';

export interface AutoRechargeReport extends AutoRechargeView {
  organization_id: string;
  /** The purchase of the recharge in flight (`GET …/credit-purchases/{id}` shows it), or null. */
  in_flight: string | null;
  /** Recharges claimed so far: the Stripe idempotency key of the next is `auto-recharge:<org>:<sequence + 1>`. */
  sequence: number;
}

/** The organization (refused when it does not exist) and its auto-recharge item: two reads in parallel. */
export async function showAutoRecharge(orgId: string, now = new Date()): Promise<AutoRechargeReport> {
  const [, item] = await Promise.all([requireOrganization(orgId), getAutoRecharge(orgId)]);
  return { organization_id: orgId, ...autoRechargeView(item, now), in_flight: item.in_flight, sequence: item.sequence };
}
