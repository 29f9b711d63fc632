/**
 * Credit grants (docs/funding.md, "Grants and expiry"): every addition of credits is a grant,
 * written in the one transaction that adds it to the balance with its billing event. This module
 * decides those items (`grantItems`: the operator's `credits grant`, and the purchases' settle,
 * which puts them in its own transaction) and answers the grants listing. What each charge draws
 * from which grant is the ledger's (lib/billing/ledger.ts), off the request path; what lapses, the
 * expiry's (lib/billing/expiry.ts).
 */
import { cursorSigningKey, purchasedCreditsExpireDays } from '../config.ts';
import { type AuditSource, creditsEvent } from '../db/audit-events.ts';
import { type BillingEvent, type BillingEventType, billingEventPut, newBillingEvent } from '../db/billing-events.ts';
import { type TransactItem, transact } from '../db/client.ts';
import { type BalanceNotice, creditItem } from '../db/credits.ts';
import {
  firstDueAt,
  type Grant,
  type GrantSource,
  type GrantStatus,
  grantPut,
  grantView,
  listGrantsPage,
  newGrantId,
  readLedger,
} from '../db/grants.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import { defined } from '../defined.ts';
import { NoSuchOrganizationError, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { requireOwner } from '../workspace/owners.ts';

/**
 * How long after a grant's `expires_at` the expiry waits before taking what it has left: the
 * ledger draws each charge from the change stream within seconds (docs/usage.md's freshness), and
 * a charge made before the expiry must be drawn first, or the expiry would take credits that
 * charge already spent. Deployed, the expiry runs a pass every 15 s: a grant expires 10–25 s
 * (plus a pass's time) after `expires_at`, within the promised 60 s.
 */
export const EXPIRY_MARGIN_MS = 10_000;

/** When purchased credits expire (PURCHASED_CREDITS_EXPIRE_DAYS after `paidAt`), or null: by default never. */
export function purchasedCreditsExpiry(paidAt: Date): string | null {
  const days = purchasedCreditsExpireDays();
  return days === null ? null : new Date(paidAt.getTime() + days * 86_400_000).toISOString();
}

export interface NewGrant {
  orgId: string;
  source: GrantSource;
  credits: number;
  /** ISO 8601, or null: never expires. */
  expiresAt: string | null;
  purchaseId?: string | null;
  now: Date;
  /** The billing event that adds the credits: `credits.granted` (the default) or the purchases' `credits.purchased`. */
  eventType?: BillingEventType;
  title?: string;
  description?: string;
  /** The event's metadata; `grant_id` is added. */
  metadata?: Record<string, string>;
  grantId?: string;
  /** Recorded on the organization's item with the balance (its `event_id` added): a purchase's notification. */
  notice?: { attribute: BalanceNotice['attribute']; value: Record<string, unknown> };
}

/**
 * The items that add a grant, for one transaction: the balance (the organization must exist), the
 * billing event (its metadata naming `grant_id`) and the grant itself with `remaining` = `credits`
 * (the ledger has it pay the organization's debt first once it applies the event). The purchases'
 * settle puts these beside its own items; the operator's grant sends them alone.
 */
export function grantItems(input: NewGrant): { grant: Grant; event: BillingEvent; items: TransactItem[] } {
  const grant: Grant = {
    id: input.grantId ?? newGrantId(),
    source: input.source,
    credits: input.credits,
    remaining: input.credits,
    status: 'active',
    expires_at: input.expiresAt,
    expired_credits: 0,
    purchase_id: input.purchaseId ?? null,
    created_at: input.now.toISOString(),
  };
  const event = newBillingEvent({
    type: input.eventType ?? 'credits.granted',
    title: input.title ?? 'Credits granted',
    description: input.description ?? `${input.credits} credits added to the balance`,
    amount: input.credits,
    now: input.now,
    metadata: { ...input.metadata, grant_id: grant.id },
  });
  const dueAt = grant.expires_at === null ? null : firstDueAt(grant.expires_at, EXPIRY_MARGIN_MS, input.now.getTime());
  return {
    grant,
    event,
    items: [
      creditItem(
        input.orgId,
        input.credits,
        input.notice && { attribute: input.notice.attribute, value: { ...input.notice.value, event_id: event.id } },
      ),
      billingEventPut(input.orgId, event),
      grantPut(input.orgId, grant, dueAt),
    ],
  };
}

/**
 * The operator's `credits grant` (and the seed's): one transaction of the balance, the
 * `credits.granted` event and the grant.
 */
export async function grantCredits(
  orgId: string,
  amount: number,
  now = new Date(),
  reason = 'credits granted by an operator',
  /** `audit`: the operator of the admin CLI's `credits grant`, whose `credits.granted` audit event is written with it. */
  options: { source?: 'operator' | 'promotional'; expiresAt?: string | null; audit?: AuditSource } = {},
): Promise<{ organization: Organization; event: BillingEvent; grant: Grant }> {
  const { grant, event, items } = grantItems({
    orgId,
    source: options.source ?? 'operator',
    credits: amount,
    expiresAt: options.expiresAt ?? null,
    now,
    metadata: { reason },
  });
  if (options.audit) items.push(creditsEvent(orgId, event, reason, options.audit, now));
  await transact(items, (reasons) =>
    reasons[0]?.Code === 'ConditionalCheckFailed' ? new NoSuchOrganizationError(`organization ${orgId} does not exist`) : null,
  );
  return { organization: defined(await getOrganization(orgId), `organization ${orgId} after its grant`), event, grant };
}

export interface GrantsQuery {
  status?: GrantStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface GrantsListing {
  grants: Grant[];
  debt: number;
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Owners with a user's token (API keys 403 `api_key_not_allowed`, other members 403, anyone else
 * 404); never 402. One round trip: the membership, the page and the ledger's debt together. A
 * cursor is bound to the organization and the status it was issued for.
 */
export async function listGrants(caller: Caller, orgId: string, query: GrantsQuery): Promise<GrantsListing> {
  const scope = `credit-grants:${orgId}:${query.status ?? '*'}`;
  let after: string | undefined;
  if (query.cursor !== undefined) {
    const opened = openCursor(query.cursor, cursorSigningKey(), scope);
    if ('problem' in opened) throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
    after = opened.position;
  }
  const [, page, state] = await Promise.all([
    requireOwner(caller, orgId),
    listGrantsPage(orgId, query.status, query.limit, after),
    readLedgerDebt(orgId),
  ]);
  return {
    grants: page.grants.map(grantView),
    debt: state,
    next_cursor: page.hasMore && page.next !== undefined ? sealCursor(scope, page.next, cursorSigningKey()) : null,
    has_more: page.hasMore,
  };
}

const readLedgerDebt = async (orgId: string): Promise<number> => (await readLedger(orgId))?.debt ?? 0;
