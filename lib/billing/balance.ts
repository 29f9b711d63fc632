/**
 * The balance as a client sees it: credits left, and this month's spend against the
 * organization's and the caller's limits. One DynamoDB round trip: the organization, the
 * membership and the two spend counters are read together (with the rate-limit counter when
 * called over HTTP), and a non-member's reads are discarded.
 */
import { membershipOfCaller } from '../auth/access.ts';
import { readSpend } from '../db/credits.ts';
import { spendMonth } from '../db/keys.ts';
import { getOrganization } from '../db/organizations.ts';
import { notFound } from '../errors.ts';
import type { Caller, Role } from '../model.ts';
import { monthPeriod } from './period.ts';

export interface CreditsOverview {
  organization_id: string;
  balance: number;
  currency: 'credits';
  /** The current UTC month; `end` is exclusive (when limits reset). */
  period: { start: string; end: string };
  organization: { spending_limit: number | null; spent: number };
  /** The caller's membership. */
  member: { role: Role; spending_limit: number | null; spent: number };
}

/** Any member may read it; anyone else gets the same 404 as for an unknown organization. Never 402. */
export async function readCreditsOverview(caller: Caller, orgId: string, now = new Date()): Promise<CreditsOverview> {
  const [org, membership, spent] = await Promise.all([
    getOrganization(orgId),
    membershipOfCaller(caller, orgId),
    readSpend(orgId, caller.userId, spendMonth(now)),
  ]);
  if (!org || !membership) throw notFound();
  return {
    organization_id: org.id,
    balance: org.credits,
    currency: 'credits',
    period: monthPeriod(now),
    organization: { spending_limit: org.spending_limit, spent: spent.org },
    member: { role: membership.role, spending_limit: membership.spending_limit, spent: spent.member },
  };
}
