/**
 * Grant expiry (docs/funding.md, "Grants and expiry"): deployed, a scheduled function every minute
 * running a pass every 15 s (functions/expire-grants.ts); `npm start`, every
 * GRANT_EXPIRY_INTERVAL_SECONDS. Each pass takes the grants due in the index (lib/db/keys.ts
 * `GRANTS_DUE`):
 *
 * - a warning due (7 days ahead, or at once for a grant created with less): marks the grant
 *   `warned_at` once, if it has credits left; the owners' `credits.expiring` comes from that
 *   change's stream record (lib/alerts/crossings.ts). Then it is due at its expiry.
 * - an expiry due (`expires_at` + EXPIRY_MARGIN_MS, so that charges made before it are drawn
 *   first): one transaction takes what the grant has left off the balance, at most the balance
 *   (never below zero), with a `credits.expired` event, `remaining` 0, `expired_credits` and
 *   `status: "expired"`; conditional on the grant's version, so a concurrent draw conflicts and
 *   the next pass decides again. Nothing is written for 0 but the status.
 *
 * What the margin bounds: a stream lagging more than it leaves charges made before `expires_at`
 * undrawn; the expiry then takes up to their sum from this grant too, and they draw the next
 * grants (or make debt) once applied. The balance, authoritative, stays exact and never below zero.
 */

import { billingEventPut } from '../db/billing-events.ts';
import { transact } from '../db/client.ts';
import { type GrantRecord, getGrant, grantUpdate, listDueGrants } from '../db/grants.ts';
import { expiryOrgItem, getOrganization } from '../db/organizations.ts';
import { logError } from '../log.ts';
import { EXPIRY_MARGIN_MS } from './grants.ts';
import { reclaimLanes } from './lanes.ts';
import { expiredEvent, expiryNotice } from './ledger.ts';

export interface ExpiryPass {
  warned: number;
  /** Grants whose credits left the balance (a `credits.expired` event each). */
  expired: number;
  /** Credits that left balances. */
  credits: number;
  /** Grants that changed concurrently or failed (the next pass tries again). */
  retried: number;
}

/** Grants one pass takes on; the soonest due first, the rest in the next pass. */
const PASS_LIMIT = 200;

/** One pass at `now`: every grant due then. */
export async function expireDueGrants(now = new Date()): Promise<ExpiryPass> {
  const pass: ExpiryPass = { warned: 0, expired: 0, credits: 0, retried: 0 };
  for (const key of await listDueGrants(now.toISOString(), PASS_LIMIT)) {
    try {
      const grant = await getGrant(key);
      if (grant) await settle(grant, now, pass);
    } catch (error) {
      logError('grant expiry: a grant could not be handled; the next pass tries again', error, { grant: key.SK });
      pass.retried += 1;
    }
  }
  return pass;
}

async function settle(grant: GrantRecord, now: Date, pass: ExpiryPass): Promise<void> {
  if (grant.expires_at === null) return;
  const expiryMs = Date.parse(grant.expires_at);
  const dueAt = new Date(expiryMs + EXPIRY_MARGIN_MS).toISOString();
  if (now.getTime() < expiryMs + EXPIRY_MARGIN_MS) {
    // The warning's turn: once, and only for a grant with credits left.
    const warn = grant.warned_at === null && grant.remaining > 0;
    await transact(
      [grantUpdate(grant, { remaining: grant.remaining, status: grant.status, dueAt, ...(warn ? { warnedAt: now.toISOString() } : {}) })],
      () => new Error('the grant changed: the next pass decides again'),
    );
    if (warn) pass.warned += 1;
    return;
  }
  // A hot organization's lanes go back first: an expiry takes what the balance holds, lanes included.
  if ((await getOrganization(grant.orgId, { withLanes: false }))?.lanes) await reclaimLanes(grant.orgId);
  const org = await getOrganization(grant.orgId);
  const credits = Math.min(grant.remaining, Math.max(0, org?.credits ?? 0));
  const left = grant.remaining - credits;
  // What the balance could not cover stays due (it is drawn by the next charges, or expires later).
  const change = { remaining: left, status: 'expired' as const, dueAt: left > 0 ? dueAt : null };
  if (credits === 0) {
    if (grant.status !== 'expired' || left === 0)
      await transact([grantUpdate(grant, change)], () => new Error('the grant changed: the next pass decides again'));
    return;
  }
  const event = expiredEvent(grant, credits, now);
  await transact(
    [
      grantUpdate(grant, { ...change, expired: credits }),
      expiryOrgItem(grant.orgId, credits, expiryNotice(grant, credits, event)),
      billingEventPut(grant.orgId, event),
    ],
    () => new Error('the grant or the balance changed: the next pass decides again'),
  );
  pass.expired += 1;
  pass.credits += credits;
}

/** Passes every `everyMs` until `stopByMs` (the deployed function's minute), the first at once. */
export async function expireUntil(stopByMs: number, everyMs: number): Promise<ExpiryPass> {
  const total: ExpiryPass = { warned: 0, expired: 0, credits: 0, retried: 0 };
  for (;;) {
    const started = Date.now();
    const pass = await expireDueGrants(new Date(started));
    for (const field of Object.keys(total) as (keyof ExpiryPass)[]) total[field] += pass[field];
    if (started + everyMs >= stopByMs) return total;
    await new Promise((resolve) => setTimeout(resolve, started + everyMs - Date.now()));
  }
}
