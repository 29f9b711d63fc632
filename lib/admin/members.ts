/** What an operator sees of an organization's members: role, limit and spend this month. */
import { type SpendPeriod, spendPeriod } from '../billing/period.ts';
import { NO_SPEND } from '../db/credits.ts';
import { getMembership, listMembers, type Membership } from '../db/memberships.ts';
import { readMonthSpend } from '../db/spend.ts';
import { NoSuchMemberError } from '../errors.ts';
import { requireOrganization } from './organizations.ts';

export interface MemberReport extends Membership {
  /** Credits this member spent in the current UTC month (what their spending limit is checked against). */
  spent: number;
  /** Credits this member spent on the current UTC day (what their daily limit is checked against). */
  spent_today: number;
}

export interface MembersReport {
  organization_id: string;
  period: Omit<SpendPeriod, 'month'>;
  members: MemberReport[];
}

/** The organization's members with their spend this month and today (three reads in parallel). */
export async function listMembersWithSpend(orgId: string, now = new Date()): Promise<MembersReport> {
  const { month: _month, ...period } = spendPeriod(now);
  const [, members, spend] = await Promise.all([requireOrganization(orgId), listMembers(orgId), readMonthSpend(orgId, now)]);
  return {
    organization_id: orgId,
    period,
    members: members.map((member) => {
      const spent = spend.members.get(member.user_id) ?? NO_SPEND;
      return { ...member, spent: spent.month, spent_today: spent.day };
    }),
  };
}

/** Refuses (NoSuchMemberError) unless `userId` is a member of the organization: who an operator acts for. */
export async function requireMember(orgId: string, userId: string): Promise<Membership> {
  const membership = await getMembership(orgId, userId);
  if (!membership) throw new NoSuchMemberError(`${userId} is not a member of ${orgId}`);
  return membership;
}
