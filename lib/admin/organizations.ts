/**
 * What an operator sees of organizations: the stored organization with what it spent this
 * month (the counter its spending limit is checked against), and the directory of all of them.
 */
import { type SpendPeriod, spendPeriod } from '../billing/period.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import { readMonthSpend } from '../db/spend.ts';
import { NoSuchOrganizationError } from '../errors.ts';

export interface OrganizationReport extends Organization {
  /** The current UTC month, which `spent` and the spending limit count in. */
  period: Omit<SpendPeriod, 'month'>;
  spent: number;
  /** What it spent on the current UTC day (the counter its daily limit is checked against). */
  spent_today: number;
}

/** The organization and its spend this month and today: two reads in parallel. */
export async function showOrganization(orgId: string, now = new Date()): Promise<OrganizationReport> {
  const { month: _month, ...period } = spendPeriod(now);
  const [org, spend] = await Promise.all([getOrganization(orgId), readMonthSpend(orgId, now)]);
  if (!org) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
  return { ...org, period, spent: spend.organization.month, spent_today: spend.organization.day };
}

/** Refuses (NoSuchOrganizationError) unless the organization exists. */
export async function requireOrganization(orgId: string): Promise<Organization> {
  const org = await getOrganization(orgId);
  if (!org) throw new NoSuchOrganizationError(`organization ${orgId} does not exist`);
  return org;
}
