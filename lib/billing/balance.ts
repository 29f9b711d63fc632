/**
 * The balance as a client sees it: credits left, and this month's and today's spend against the
 * organization's and the caller's limits. One DynamoDB round trip: the organization, the
 * membership and the two spend counters are read together (with the rate-limit counter when
 * called over HTTP), and a non-member's reads are discarded.
 */
import { membershipOfCaller } from '../auth/access.ts';
import { type PeriodSpend, readSpend } from '../db/credits.ts';
import { getOrganization } from '../db/organizations.ts';
import { notFound } from '../errors.ts';
import type { Caller, Role } from '../model.ts';
import { monthPeriod } from './period.ts';

/** One scope's limits (null: none) and what it spent against them this UTC month and this UTC day. */
export interface ScopeSpend {
  spending_limit: number | null;
  spent: number;
  daily_limit: number | null;
  spent_today: number;
}

export interface CreditsOverview {
  organization_id: string;
  balance: number;
  currency: 'credits';
  /** The current UTC month; `end` is exclusive (when monthly limits reset; daily ones reset every UTC midnight). */
  period: { start: string; end: string };
  organization: ScopeSpend;
  /** The caller's membership (for an API key, the key as the member it acts as). */
  member: ScopeSpend & { role: Role };
  /** For a caller with an API key: the key and its own limits (the same figures as `member`, named by the key's id). */
  api_key?: ScopeSpend & { id: string };
  /** The consent threshold of the caller's MCP calls: the lower of the organization's and the key's; null: never ask. */
  confirm_above: ConfirmAbove | null;
}

/** A consent threshold that applies, and whose it is. */
export interface ConfirmAbove {
  credits: number;
  scope: 'organization' | 'api_key';
}

/**
 * The threshold above which the caller's MCP calls ask first: the lower of the organization's and
 * (for an API key) the key's, null when neither sets one. Pure; the run path and the budget ask here.
 */
export function confirmAboveOf(
  org: { confirm_above: number | null },
  key: { confirm_above?: number | null } | undefined,
): ConfirmAbove | null {
  const own = key?.confirm_above ?? null;
  if (own !== null && (org.confirm_above === null || own < org.confirm_above)) return { credits: own, scope: 'api_key' };
  return org.confirm_above === null ? null : { credits: org.confirm_above, scope: 'organization' };
}

const scopeSpend = (limits: { spending_limit: number | null; daily_limit: number | null }, spent: PeriodSpend): ScopeSpend => ({
  spending_limit: limits.spending_limit,
  spent: spent.month,
  daily_limit: limits.daily_limit,
  spent_today: spent.day,
});

/** Any member may read it; anyone else gets the same 404 as for an unknown organization. Never 402. */
export async function readCreditsOverview(caller: Caller, orgId: string, now = new Date()): Promise<CreditsOverview> {
  const [org, membership, spent, grant] = await Promise.all([
    getOrganization(orgId),
    membershipOfCaller(caller, orgId),
    readSpend(orgId, caller.userId, now),
    caller.apiKey?.grant,
  ]);
  if (!org || !membership) throw notFound();
  const own = scopeSpend(membership, spent.member);
  return {
    organization_id: org.id,
    balance: org.credits,
    currency: 'credits',
    period: monthPeriod(now),
    organization: scopeSpend(org, spent.org),
    member: { role: membership.role, ...own },
    ...(caller.apiKey ? { api_key: { id: caller.apiKey.id, ...own } } : {}),
    confirm_above: confirmAboveOf(org, grant),
  };
}
